import UptakeCore

extension ReportQueries {
  /// The prompt-to-upgrade funnel of one update over the events in the
  /// range. `targetVersion` is the configured latestVersion, when the app's
  /// configuration names one: an upgrade must then reach at least it.
  ///
  /// Impressions come from `funnel_impression_chunks` (each install's
  /// first impression of the day, packed), downloads from
  /// `funnel_downloads` (one row per install and day, linked to the
  /// install's first version change after it, and carrying all of them),
  /// so a funnel reads its own cohort's rows: without a target the link is
  /// the upgrade, with one the row's chain of changes is walked up to it.
  /// With `test=include` the chains of both test flags are merged
  /// (`FunnelBothFlags`). For downloads not folded yet, upgrades come
  /// from `version_changes` (each time an install was first seen on a
  /// version above the one before), read for the versions the cohort's
  /// impressions were on. Two approximations follow, both for event orders
  /// the apps do not produce: a download on the day of the first impression
  /// but before it, with another after it, is taken at that day's last
  /// download; and an install that moved to another version between its
  /// impression and its download is seen upgrading only by its unfolded
  /// events.
  public func funnel(
    appNo: Int64, updateId: String, range: DayRange, test: TestFilter, targetVersion: String?
  ) throws(StoreError) -> FunnelResult {
    let target = targetVersion.flatMap(Version.init)
    return try database.read { () throws(StoreError) -> FunnelResult in
      var cohort = try FunnelCohort(
        database, appNo: appNo, updateId: updateId, range: range, test: test, target: target)
      try cohort.addImpressions()
      try cohort.addDownloads()
      if test == .include { try cohort.mergeBothFlags() }
      try cohort.climbVersionChanges()
      cohort.addUnfoldedUpgrades()
      return try cohort.result()
    }
  }

  static func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }
}

/// Each install of the cohort: its first impression in the range, its
/// first download at or after it, its first upgrade after that.
private struct InstallSteps {
  var impressionTs = Int64.max
  var downloadTs = Int64.max
  var upgradeTs = Int64.max
  var impressionVersion: Int32 = 0
  /// Whether `upgradeTs` is known from the download's link, so the
  /// install need not climb through version_changes.
  var linkedUpgrade = false
  /// Whether `downloadTs` comes from a folded row (not the tail).
  var downloadFolded = false
}

/// What counts as an upgrade: reaching the target when one is configured,
/// else any version above the impression's.
private struct UpgradeRule {
  let target: Version?
  /// Versions repeat across thousands of installs: each text is numbered
  /// and parsed once.
  var versions = TextNumbering()

  mutating func isUpgrade(_ reached: Int32, from impressionVersion: Int32) -> Bool {
    guard let reachedVersion = versions.version(reached) else { return false }
    if let target { return reachedVersion >= target }
    guard let base = versions.version(impressionVersion) else { return false }
    return reachedVersion > base
  }

  /// The first upgrade along `chain` (in time order) after `since`,
  /// followed from the impression's version as the climb does; .max when
  /// there is none before `endMs`.
  mutating func firstUpgrade(
    along chain: [FunnelBothFlags.Change], after since: Int64, from impressionVersion: Int32,
    before endMs: Int64
  ) -> Int64 {
    var version = impressionVersion
    var since = since
    for change in chain where change.ts > since && change.ts < endMs && change.from == version {
      if isUpgrade(change.to, from: impressionVersion) { return change.ts }
      (version, since) = (change.to, change.ts)
    }
    return .max
  }
}

/// One funnel's cohort, built in phases: impressions, then downloads, then
/// upgrades from the links and chains, the climb and the unfolded events.
private struct FunnelCohort {
  let database: Database
  let appNo: Int64
  let updateId: String
  let range: DayRange
  let test: TestFilter
  /// The days the update has folded rows on (an empty span when none).
  let firstDay: Int64
  let lastDay: Int64
  /// Without a target, the version change linked to a download row is the
  /// install's first after the row's first_ts: when the download is taken
  /// at that time, the change is the upgrade if it leaves the impression's
  /// version, and there is none without a change. The link follows the
  /// changes of the row's own test flag, so it holds when the filter reads
  /// one flag. The rest (a download taken at its day's last time, an
  /// unfolded one, a change away from another version, test=include, every
  /// download when a target is configured) climb through version_changes.
  let linksHold: Bool
  /// With a target, every change after the download is on its row
  /// (`later_changes`, schema/0009): the chain is walked as the climb
  /// would, from the impression's version up to the target. Without one
  /// the link alone settles most rows; walking the chains instead gives
  /// the same answers but decodes every chain, which was slower
  /// (docs/performance.md, reports).
  let chainsHold: Bool
  /// The unfolded events in the range that the filter admits, by install.
  let unfolded: [Int64: [RollupEvent]]
  var upgrades: UpgradeRule
  var installs: InstallMap<InstallSteps>
  /// Filled only with `test=include`.
  var bothFlags = FunnelBothFlags()

  init(
    _ database: Database, appNo: Int64, updateId: String, range: DayRange, test: TestFilter,
    target: Version?
  ) throws(StoreError) {
    self.database = database
    self.appNo = appNo
    self.updateId = updateId
    self.range = range
    self.test = test
    linksHold = target == nil && test != .include
    chainsHold = target != nil && test != .include
    upgrades = UpgradeRule(target: target)
    unfolded = try Self.unfoldedEvents(database, appNo: appNo, range: range, test: test)
    let span = try Self.foldedSpan(
      database, appNo: appNo, updateId: updateId, range: range, test: test)
    firstDay = span.days?.first ?? 1
    lastDay = span.days?.last ?? 0
    installs = InstallMap(capacity: max(1 << 12, span.impressionInstalls))
  }

  private static func unfoldedEvents(
    _ database: Database, appNo: Int64, range: DayRange, test: TestFilter
  ) throws(StoreError) -> [Int64: [RollupEvent]] {
    let tail = try RollupTail.load(database, appNo: appNo)
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
          installs.addImpression(install, at: ts, version: upgrades.versions.number(version))
        }
      }
    }
    impressions.reset()
    for (install, events) in unfolded {
      for event in events where event.updateId == updateId && event.action == .impression {
        installs.addImpression(
          install, at: event.timestampMs, version: upgrades.versions.number(event.appVersion))
      }
    }
  }

  /// Each install's first download at or after its impression, matched
  /// once every impression is known, with the upgrade its row's link or
  /// chain settles (`linksHold`, `chainsHold`).
  mutating func addDownloads() throws(StoreError) {
    let rows = try database.statement(
      """
      SELECT install_key, first_ts, last_ts, upgrade_ts, upgrade_from, later_changes, is_test
      FROM funnel_downloads
      WHERE app_no = ? AND \(test.sqlCondition) AND update_id = ? AND day BETWEEN ? AND ?
      """)
    try rows.bind(1, appNo)
    try rows.bind(2, updateId)
    try rows.bind(3, firstDay)
    try rows.bind(4, lastDay)
    var chain: [FunnelBothFlags.Change] = []
    while try rows.step() {
      let linksChange = !rows.isNull(3)
      chain.removeAll(keepingCapacity: true)
      if chainsHold || test == .include {
        rows.withBlob(5) { packed in
          VersionChange.forEachPacked(in: packed) { ts, from, to in
            chain.append((ts, upgrades.versions.number(from), upgrades.versions.number(to)))
          }
        }
        chain.sort { $0.ts < $1.ts }
      }
      let link = (
        ts: linksChange ? rows.int64(3) : .max,
        from: linksChange ? rows.withText(4) { upgrades.versions.number($0) } : 0
      )
      addDownload(
        rows.int64(0), first: rows.int64(1), last: rows.int64(2), link: link, chain: chain,
        folded: true)
      if test == .include {
        bothFlags.addRow(rows.int64(0), isTest: rows.int(6) != 0, chain: chain)
      }
    }
    rows.reset()
    for (install, events) in unfolded {
      for event in events where event.updateId == updateId && event.action == .download {
        addDownload(
          install, first: event.timestampMs, last: event.timestampMs, link: nil, chain: nil,
          folded: false)
      }
    }
  }

  private mutating func addDownload(
    _ install: Int64, first: Int64, last: Int64, link: (ts: Int64, from: Int32)?,
    chain: [FunnelBothFlags.Change]?, folded: Bool
  ) {
    installs.modify(install) { steps in
      let at =
        first >= steps.impressionTs
        ? first : (last >= steps.impressionTs ? last : Int64.max)
      guard at < steps.downloadTs else { return }
      steps.downloadTs = at
      steps.upgradeTs = .max
      steps.linkedUpgrade = false
      steps.downloadFolded = folded
      // An unfolded download has no chain: it climbs.
      if chainsHold, let chain {
        steps.linkedUpgrade = true
        steps.upgradeTs = upgrades.firstUpgrade(
          along: chain, after: at, from: steps.impressionVersion, before: range.endMs)
        return
      }
      guard linksHold, at == first, let link,
        link.ts == .max || link.from == steps.impressionVersion
      else { return }
      steps.linkedUpgrade = true
      if link.ts < range.endMs { steps.upgradeTs = link.ts }
    }
  }

  /// `test=include`: each folded download's upgrade walked along the
  /// changes of both test flags.
  mutating func mergeBothFlags() throws(StoreError) {
    try bothFlags.completeOtherFlags(
      database, appNo: appNo, fromDay: firstDay, throughDay: range.toDay, &upgrades.versions)
    for (install, entry) in bothFlags.changes {
      guard let steps = installs[install], steps.downloadTs != .max, steps.downloadFolded
      else { continue }
      let upgrade = upgrades.firstUpgrade(
        along: entry.list.sorted { $0.ts < $1.ts }, after: steps.downloadTs,
        from: steps.impressionVersion, before: range.endMs)
      installs.modify(install) { steps in
        steps.upgradeTs = upgrade
        steps.linkedUpgrade = true
      }
    }
  }

  /// The upgrades of the downloads no link or chain settled, read from
  /// version_changes by the version left: without a target the first
  /// change is an upgrade; with one, a change to a version still below it
  /// is followed to the changes away from that version, and so on (each
  /// step goes higher, so the climb ends).
  mutating func climbVersionChanges() throws(StoreError) {
    var climbing: [Int32: InstallMap<Int64>] = [:]
    try installs.forEach { (install, steps) throws(StoreError) in
      guard steps.downloadTs != .max, !steps.linkedUpgrade else { return }
      climbing[steps.impressionVersion, default: InstallMap()].set(install, steps.downloadTs)
    }
    let changes = try database.statement(
      """
      SELECT install_key, to_version, ts FROM version_changes
      WHERE app_no = ? AND \(test.sqlCondition) AND from_version = ? AND day BETWEEN ? AND ?
      """)
    while !climbing.isEmpty {
      var next: [Int32: InstallMap<Int64>] = [:]
      for (left, climbers) in climbing {
        var firstTs = Int64.max
        try climbers.forEach { (_, since) throws(StoreError) in firstTs = min(firstTs, since) }
        try changes.bind(1, appNo)
        try changes.bind(2, upgrades.versions.texts[Int(left)])
        try changes.bind(3, Timestamp.dayNumber(ms: firstTs))
        try changes.bind(4, range.toDay)
        var stepped = InstallMap<(ts: Int64, version: Int32)>()
        while try changes.step() {
          let install = changes.int64(0)
          let ts = changes.int64(2)
          guard let since = climbers[install], ts > since, ts < range.endMs,
            let steps = installs[install], ts < steps.upgradeTs
          else { continue }
          let reached = changes.withText(1) { upgrades.versions.number($0) }
          if upgrades.isUpgrade(reached, from: steps.impressionVersion) {
            installs.update(install, initial: steps) { $0.upgradeTs = ts }
          } else if upgrades.target != nil, ts < stepped[install]?.ts ?? .max {
            stepped.set(install, (ts, reached))
          }
        }
        changes.reset()
        try stepped.forEach { (install, step) throws(StoreError) in
          guard installs[install]?.upgradeTs == .max else { return }
          next[step.version, default: InstallMap()].set(install, step.ts)
        }
      }
      climbing = next
    }
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

extension InstallMap where Value == InstallSteps {
  /// Keeps each install's earliest impression; its version is numbered
  /// only when it is kept.
  fileprivate mutating func addImpression(
    _ install: Int64, at ts: Int64, version number: @autoclosure () -> Int32
  ) {
    update(install, initial: InstallSteps()) { steps in
      if ts < steps.impressionTs {
        steps.impressionTs = ts
        steps.impressionVersion = number()
      }
    }
  }
}
