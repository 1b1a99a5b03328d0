import UptakeCore

extension ReportQueries {
  /// The prompt-to-upgrade funnel of one update over the events in the
  /// range, exactly as the contract defines it, whatever order the events
  /// arrived in. `targetVersion` is the configured latestVersion, when the
  /// app's configuration names one: an upgrade must then reach at least it.
  ///
  /// Each install's first impression comes from `funnel_impression_chunks`
  /// (the earliest; at one time, the lowest version), its first download at
  /// or after it from the download times of `funnel_download_chunks`, and its
  /// upgrade, the first event after that download on a high enough version,
  /// from the same entry's rises (schema/0016, 0019). Where no folded row of a test
  /// flag holds that download (a download not folded yet, or the other
  /// flag's events under `test=include`), the install's timeline in
  /// install_days answers instead; the events not folded yet are added last.
  public func funnel(
    appNo: Int64, updateId: String, range: DayRange, test: TestFilter, targetVersion: String?
  ) throws(StoreError) -> FunnelResult {
    let target = targetVersion.flatMap(Version.init)
    return try database.read { () throws(StoreError) -> FunnelResult in
      var cohort = try FunnelCohort(
        self, appNo: appNo, updateId: updateId, range: range, test: test, target: target)
      try cohort.addImpressions()
      try cohort.addDownloads()
      try cohort.addUpgradesFromTimelines()
      cohort.addUnfoldedUpgrades()
      defer { cohort.keepMapForReuse() }
      return try cohort.result()
    }
  }

  static func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    var values = values
    let middle = values.count / 2
    values.selectUnstably(middle, by: AscendingNumbers.self)
    guard values.count % 2 == 0 else { return values[middle] }
    // The element before the middle in sorted order: the largest below it.
    return (values[..<middle].max()! + values[middle]) / 2
  }

  private enum AscendingNumbers: UnstableSortOrder {
    static func precedes(_ lhs: Double, _ rhs: Double) -> Bool { lhs < rhs }
  }
}

/// Each install of the cohort: its first impression in the range, its
/// first download at or after it, its first upgrade after that.
///
/// The 4-byte and 1-byte fields come last: laid out in this order a value
/// takes 32 bytes in the map, where 40 with the version between the times
/// (a funnel's cohort is millions of them at most).
private struct InstallSteps {
  var impressionTs = Int64.max
  var downloadTs = Int64.max
  var upgradeTs = Int64.max
  var impressionVersion: Int32 = 0
  /// The test flags (bit 0 non-test, bit 1 test) whose folded download
  /// rows hold `downloadTs`: their rises settled that flag's upgrade.
  var settledFlags: UInt8 = 0
}

/// One funnel's cohort, built in phases: impressions, downloads with the
/// upgrades their rows settle, the rest from timelines, then the unfolded
/// events.
private struct FunnelCohort {
  /// The report's connection and limits (`ReportQueries.checkInstalls`).
  let queries: ReportQueries
  var database: Database { queries.database }
  let appNo: Int64
  let updateId: String
  let range: DayRange
  let test: TestFilter
  /// The days the update has folded rows on (an empty span when none).
  let firstDay: Int64
  let lastDay: Int64
  /// The unfolded events in the range that the filter admits, by install.
  let unfolded: [Int64: [RollupEvent]]
  var upgrades: UpgradeRule
  var installs: InstallMap<InstallSteps>

  init(
    _ queries: ReportQueries, appNo: Int64, updateId: String, range: DayRange, test: TestFilter,
    target: Version?
  ) throws(StoreError) {
    let database = queries.database
    self.queries = queries
    self.appNo = appNo
    self.updateId = updateId
    self.range = range
    self.test = test
    upgrades = UpgradeRule(target: target)
    unfolded = try Self.unfoldedEvents(queries, appNo: appNo, range: range, test: test)
    let span = try Self.foldedSpan(
      database, appNo: appNo, updateId: updateId, range: range, test: test)
    firstDay = span.days?.first ?? 1
    lastDay = span.days?.last ?? 0
    // The daily counts overcount installs seen on several days: sized for
    // at most the limit, the map grows past it only to be refused.
    let capacity = max(1 << 12, min(span.impressionInstalls, queries.maxInstalls ?? .max))
    let slots = InstallMap<InstallSteps>.slotCount(forCapacity: capacity)
    if var spare = Self.spareMaps.take(where: { (slots...(4 * slots)).contains($0.slotCount) }) {
      spare.removeAll()
      installs = spare
    } else {
      installs = InstallMap(capacity: capacity)
    }
  }

  /// Emptied maps of earlier funnels, at most 2 of at most
  /// `largestSpareSlots` slots (40 bytes each: 20 MiB).
  private static let spareMaps = SparePool<InstallMap<InstallSteps>>(keeping: 2)
  private static let largestSpareSlots = 1 << 19

  /// Gives the map to the next funnel, when it is not too large to keep.
  func keepMapForReuse() {
    guard installs.slotCount <= Self.largestSpareSlots else { return }
    Self.spareMaps.give(installs)
  }

  /// The test flags the filter admits, as `InstallSteps.settledFlags` bits.
  private var admittedFlags: UInt8 {
    switch test {
    case .exclude: 1
    case .only: 2
    case .include: 3
    }
  }

  private static func unfoldedEvents(
    _ queries: ReportQueries, appNo: Int64, range: DayRange, test: TestFilter
  ) throws(StoreError) -> [Int64: [RollupEvent]] {
    let tail = try queries.unfoldedTail(appNo: appNo)
    var byInstall: [Int64: [RollupEvent]] = [:]
    for event in tail.events
    where test.admits(isTest: event.isTest) && event.timestampMs >= range.startMs
      && event.timestampMs < range.endMs
    {
      guard let install = event.installKey else { continue }
      byInstall[install, default: []].append(event)
    }
    return byInstall
  }

  /// The days the update has folded rows on, not the whole range (which
  /// may span years), and its daily impression installs: at least the
  /// cohort's size, so the map is sized once.
  private static func foldedSpan(
    _ database: Database, appNo: Int64, updateId: String, range: DayRange, test: TestFilter
  ) throws(StoreError) -> (days: (first: Int64, last: Int64)?, impressionInstalls: Int) {
    let span = try database.statement(
      """
      SELECT min(day), max(day), sum(installs) FILTER (WHERE action = 0) FROM daily_counts
      WHERE app_no = ? AND day BETWEEN ? AND ? AND \(test.sqlCondition) AND update_id = ?
      """)
    try span.bind(1, appNo)
    try span.bind(2, range.fromDay)
    try span.bind(3, range.toDay)
    try span.bind(4, updateId)
    let days: (first: Int64, last: Int64)? =
      try span.step() && !span.isNull(0) ? (span.int64(0), span.int64(1)) : nil
    let impressionInstalls = span.int(2)
    span.reset()
    return (days, impressionInstalls)
  }

  /// Each install's first impression, folded then unfolded.
  mutating func addImpressions() throws(StoreError) {
    // The first impressions packed 512 to a row (schema/0008): a busy
    // update's cohort is tens of thousands of installs, and SQLite's cost
    // is per row stepped.
    let impressions = try database.statement(
      """
      SELECT packed FROM funnel_impression_chunks
      WHERE app_no = ? AND \(test.sqlCondition) AND update_id = ? AND day BETWEEN ? AND ?
        AND action = 0
      """)
    try impressions.bind(1, appNo)
    try impressions.bind(2, updateId)
    try impressions.bind(3, firstDay)
    try impressions.bind(4, lastDay)
    while try impressions.step() {
      impressions.withBlob(0) { packed in
        FirstImpression.forEachPacked(in: packed) { install, ts, version in
          addImpression(install, at: ts, version: upgrades.versions.number(version))
        }
      }
      try queries.checkInstalls(installs.count)
    }
    impressions.reset()
    for (install, events) in unfolded {
      for event in events where event.updateId == updateId && event.action == .impression {
        addImpression(
          install, at: event.timestampMs, version: upgrades.versions.number(event.appVersion))
      }
    }
    try queries.checkInstalls(installs.count)
  }

  /// Keeps each install's earliest impression, and at one time the lowest
  /// version, so the answer does not depend on which arrived first.
  private mutating func addImpression(_ install: Int64, at ts: Int64, version: Int32) {
    // One probe of the map; the versions are compared only at a tie.
    var tiedWith: Int32?
    installs.update(install, initial: InstallSteps()) { steps in
      if ts < steps.impressionTs {
        steps.impressionTs = ts
        steps.impressionVersion = version
      } else if ts == steps.impressionTs {
        tiedWith = steps.impressionVersion
      }
    }
    if let tiedWith, upgrades.isFirst(version, before: tiedWith) {
      installs.modify(install) { $0.impressionVersion = version }
    }
  }

  /// Each install's first download at or after its impression, matched once
  /// every impression is known; a folded row holding it settles its flag's
  /// upgrade from its rises. An install may have several entries of a day
  /// (schema/0019): each is taken, as the newest decides either way.
  mutating func addDownloads() throws(StoreError) {
    // Packed 512 to a row: the busiest update's 22,350 rows of one entry
    // each took 13 ms of its 33 ms funnel to step.
    let rows = try database.statement(
      """
      SELECT day, is_test, packed FROM funnel_download_chunks
      WHERE app_no = ? AND \(test.sqlCondition) AND update_id = ? AND day BETWEEN ? AND ?
        AND action = \(Action.download.rawValue)
      """)
    try rows.bind(1, appNo)
    try rows.bind(2, updateId)
    try rows.bind(3, firstDay)
    try rows.bind(4, lastDay)
    while try rows.step() {
      let dayStartMs = rows.int64(0) * Timestamp.msPerDay
      let flag: UInt8 = rows.int(1) != 0 ? 2 : 1
      rows.withBlob(2) { packed in
        DownloadRow.forEachPacked(in: packed) { install, downloads, rises in
          addDownload(install, downloads, rises, dayStartMs: dayStartMs, flag: flag)
        }
      }
    }
    rows.reset()
    for (install, events) in unfolded {
      for event in events where event.updateId == updateId && event.action == .download {
        installs.modify(install) { steps in
          guard event.timestampMs >= steps.impressionTs, event.timestampMs < steps.downloadTs
          else { return }
          steps.downloadTs = event.timestampMs
          steps.upgradeTs = .max
          steps.settledFlags = 0
        }
      }
    }
  }

  /// One entry of an install's downloads on a day: its first download at or
  /// after the impression, and the upgrade its rises settle.
  private mutating func addDownload(
    _ install: Int64, _ downloads: UnsafeRawBufferPointer, _ rises: UnsafeRawBufferPointer,
    dayStartMs: Int64, flag: UInt8
  ) {
    guard var steps = installs[install],
      let at = DownloadTimes.first(
        atOrAfter: steps.impressionTs, in: downloads, dayStartMs: dayStartMs),
      at <= steps.downloadTs
    else { return }
    if at < steps.downloadTs {
      steps.downloadTs = at
      steps.upgradeTs = .max
      steps.settledFlags = 0
    }
    steps.settledFlags |= flag
    let rise = firstUpgrade(
      in: rises, dayStartMs: dayStartMs, after: at, from: steps.impressionVersion)
    steps.upgradeTs = min(steps.upgradeTs, rise)
    installs.set(install, steps)
  }

  /// The first rise after `since`, before the range ends, that is an
  /// upgrade from `impressionVersion`; .max when none is.
  private mutating func firstUpgrade(
    in rises: UnsafeRawBufferPointer, dayStartMs: Int64, after since: Int64,
    from impressionVersion: Int32
  ) -> Int64 {
    var found = Int64.max
    let endMs = range.endMs
    Rises.forEach(in: rises, dayStartMs: dayStartMs) { ts, version in
      guard ts < endMs else { return false }
      guard ts > since else { return true }
      guard upgrades.isUpgrade(upgrades.versions.number(version), from: impressionVersion)
      else { return true }
      found = ts
      return false
    }
    return found
  }

  /// The upgrades no folded row settled: for each admitted test flag whose
  /// rows did not hold the download, the first event of the install's
  /// folded timeline under that flag after it.
  mutating func addUpgradesFromTimelines() throws(StoreError) {
    let timeline = try database.statement(
      """
      SELECT day, app_version, times FROM install_days
      WHERE app_no = ? AND is_test = ? AND install_key = ? AND day BETWEEN ? AND ?
      """)
    var pending: [(install: Int64, steps: InstallSteps)] = []
    try installs.forEach { (install, steps) throws(StoreError) in
      guard steps.downloadTs != .max, steps.settledFlags != admittedFlags else { return }
      pending.append((install, steps))
    }
    let firstDownloadDay = pending.lazy.map { Timestamp.dayNumber(ms: $0.steps.downloadTs) }.min()
    var withTestEvents = InstallSet()
    if test == .include, let firstDownloadDay {
      withTestEvents = try installsWithTestEvents(from: firstDownloadDay)
    }
    for (install, var steps) in pending {
      for flag: UInt8 in [1, 2] where admittedFlags & flag != 0 && steps.settledFlags & flag == 0 {
        // Under test=include most downloaders have no test events at all.
        if flag == 2 && test == .include && !withTestEvents.contains(install) { continue }
        try timeline.bind(1, appNo)
        try timeline.bind(2, Int64(flag == 2 ? 1 : 0))
        try timeline.bind(3, install)
        try timeline.bind(4, Timestamp.dayNumber(ms: steps.downloadTs))
        try timeline.bind(5, range.toDay)
        while try timeline.step() {
          let version = timeline.withText(1) { upgrades.versions.number($0) }
          guard upgrades.isUpgrade(version, from: steps.impressionVersion) else { continue }
          let dayStartMs = timeline.int64(0) * Timestamp.msPerDay
          timeline.withBlob(2) { times in
            SeenTimes.forEach(in: times, dayStartMs: dayStartMs) { ts, _ in
              if ts > steps.downloadTs && ts < range.endMs {
                steps.upgradeTs = min(steps.upgradeTs, ts)
              }
            }
          }
        }
        timeline.reset()
      }
      installs.set(install, steps)
    }
  }

  /// The installs with a folded test event from `fromDay` to the range's
  /// end, from the test buckets' packed members: test traffic is small, and
  /// a lookup of the test timeline of every downloader made `test=include`
  /// funnels of a busy update three times slower. `fromDay` is the
  /// earliest download's day, not the update's first folded day: a download
  /// not folded yet can come before every folded event of the update, and
  /// its upgrade (an event of any update) with it.
  private func installsWithTestEvents(from fromDay: Int64) throws(StoreError) -> InstallSet {
    let members = try database.statement(
      """
      SELECT packed FROM daily_install_chunks
      WHERE app_no = ? AND is_test = 1 AND day BETWEEN ? AND ?
      """)
    try members.bind(1, appNo)
    try members.bind(2, fromDay)
    try members.bind(3, range.toDay)
    var found = InstallSet()
    while try members.step() {
      members.withBlob(0) { packed in Int64.forEachPacked(in: packed) { found.insert($0) } }
    }
    members.reset()
    return found
  }

  /// Unfolded events: any later event on a high enough version.
  mutating func addUnfoldedUpgrades() {
    for (install, events) in unfolded {
      guard let steps = installs[install], steps.downloadTs != .max else { continue }
      for event in events
      where event.timestampMs > steps.downloadTs
        && event.timestampMs < installs[install]!.upgradeTs
        && upgrades.isUpgrade(
          upgrades.versions.number(event.appVersion), from: steps.impressionVersion)
      {
        installs.update(install, initial: steps) { $0.upgradeTs = event.timestampMs }
      }
    }
  }

  func result() throws(StoreError) -> FunnelResult {
    var downloads = 0
    var hoursToUpgrade: [Double] = []
    try installs.forEach { (_, steps) throws(StoreError) in
      guard steps.downloadTs != .max else { return }
      downloads += 1
      if steps.upgradeTs != .max {
        hoursToUpgrade.append(Double(steps.upgradeTs - steps.impressionTs) / 3_600_000)
      }
    }
    return FunnelResult(
      impressions: installs.count, downloads: downloads, upgraded: hoursToUpgrade.count,
      medianHoursToUpgrade: ReportQueries.median(hoursToUpgrade))
  }
}
