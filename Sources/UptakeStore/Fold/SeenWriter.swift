import UptakeCore

/// `RollupWriter.writeSeen`'s work, install by install: each install's
/// timeline (install_days) merged with the step's events, the adoption
/// counts of the rows it gains, and its download rows worked out again
/// where the new points change them (`FunnelDownloads`).
struct SeenWriter {
  private var rows: InstallDayRows
  /// New rows' installs per `DailyVersionsKey`, and per app, test flag
  /// and day (`PairCounts.Key(appNo:isTest:day:)`).
  private var versionInstalls = PairCounts()
  private var activeInstalls = PairCounts()
  private var funnelDownloads = FunnelDownloads()
  /// Update ids of the batch and of the stored timelines.
  var updates = TextNumbering()
  /// `updates`' number of each update rank of the batch.
  private let batchUpdates: [Int32]
  /// Each version number's place in version order (`TextNumbering.versionRanks`).
  private var ranks: [Int32] = []
  // Buffers for one install at a time, kept from install to install with
  // their capacity: a step brings a few hundred thousand installs, and
  // arrays made for each cost the fold 4-7 % (docs/performance.md,
  // session 31).
  private var timeline: [TimelinePoint] = []
  private var added: [TimelinePoint] = []
  private var newRows: [RowKey] = []
  private var touched: [RowKey] = []
  private var rowPoints: [TimelinePoint] = []
  private var packed: [UInt8] = []

  init(_ database: Database, updateIds: [String]) throws(StoreError) {
    rows = try InstallDayRows(database)
    var updates = TextNumbering()
    batchUpdates = updateIds.map { updates.number($0) }
    self.updates = updates
  }

  /// Call once every version the next installs will meet is numbered: the
  /// batch's and their stored ones (`InstallTimelines.Reader`). Ranks are
  /// only compared within one install, so they may change between installs
  /// as versions are added.
  mutating func rankVersions(_ versions: inout TextNumbering) {
    guard ranks.count != versions.texts.count else { return }
    ranks = versions.versionRanks()
  }

  /// One install's `events` merged into its `known` points. Rows that gain
  /// a point are written whole; a row new to the install counts in the
  /// adoption tables.
  mutating func addInstall(
    _ events: ArraySlice<FoldEvent>, known: ArraySlice<TimelinePoint>, versions: TextNumbering
  ) throws(StoreError) {
    let install = events[events.startIndex]
    timeline.removeAll(keepingCapacity: true)
    timeline += known
    timeline.sort { $0.precedes($1) }
    findNewPoints(events)
    guard !added.isEmpty else { return }
    let scope = InstallScope(
      appNo: install.appNo, isTest: install.isTest, installKey: install.installKey)
    countNewRows(scope)
    timeline += added
    timeline.sort { $0.precedes($1) }
    try writeRows(scope, versions)
    funnelDownloads.update(scope, added: added, timeline: timeline, ranks: ranks)
  }

  /// The events' points the timeline does not hold yet, into `added`: a
  /// repeat of a time and version adds nothing unless it is a download not
  /// held at it.
  private mutating func findNewPoints(_ events: ArraySlice<FoldEvent>) {
    added.removeAll(keepingCapacity: true)
    for event in events {
      let point = TimelinePoint(
        ts: event.timestampMs, version: event.version,
        download: event.action == UInt8(Action.download.rawValue)
          ? batchUpdates[Int(event.update)] : TimelinePoint.noDownload)
      // The events come sorted by time: a repeat within them is at the end.
      if Self.holds(timeline[...], point) || Self.holds(added[...], point) { continue }
      added.append(point)
    }
  }

  /// Whether `points` (sorted by time) hold `point` or, for a point that is
  /// no download, any point at its time and version.
  private static func holds(_ points: ArraySlice<TimelinePoint>, _ point: TimelinePoint) -> Bool {
    var index = points.firstIndex(notBefore: point.ts)
    while index < points.endIndex && points[index].ts == point.ts {
      let held = points[index]
      if held.version == point.version
        && (point.download == TimelinePoint.noDownload || held.download == point.download)
      {
        return true
      }
      index += 1
    }
    return false
  }

  /// Adds the rows the `added` points open to the adoption counts: a
  /// version's installs that day, and the day's when the install had no row
  /// that day (none in `timeline`, the known points). An install has a few
  /// rows: plain scans serve, where building sets was a twentieth of the
  /// fold.
  private mutating func countNewRows(_ scope: InstallScope) {
    newRows.removeAll(keepingCapacity: true)
    for point in added {
      let key = RowKey(day: point.day, version: point.version)
      guard !newRows.contains(key),
        !timeline.contains(where: { $0.version == key.version && $0.day == key.day })
      else { continue }
      versionInstalls.add(
        DailyVersionsKey(
          appNo: scope.appNo, isTest: scope.isTest, day: point.day, version: point.version
        ).countKey)
      if !timeline.contains(where: { $0.day == key.day })
        && !newRows.contains(where: { $0.day == key.day })
      {
        activeInstalls.add(
          PairCounts.Key(appNo: scope.appNo, isTest: scope.isTest, day: Int64(point.day)))
      }
      newRows.append(key)
    }
  }

  /// Writes each row (day and version) an `added` point falls in, whole,
  /// from `timeline`, the install's points old and new.
  private mutating func writeRows(_ scope: InstallScope, _ versions: TextNumbering)
    throws(StoreError)
  {
    let updateIds = updates.texts
    touched.removeAll(keepingCapacity: true)
    for point in added {
      let key = RowKey(day: point.day, version: point.version)
      if !touched.contains(key) { touched.append(key) }
    }
    for key in touched {
      rowPoints.removeAll(keepingCapacity: true)
      for point in timeline where point.day == key.day && point.version == key.version {
        rowPoints.append(point)
      }
      let dayStartMs = Int64(key.day) * Timestamp.msPerDay
      packed.removeAll(keepingCapacity: true)
      SeenTimes.pack(
        rowPoints, dayStartMs: dayStartMs, into: &packed, ts: { $0.ts },
        download: { point in
          point.download == TimelinePoint.noDownload ? nil : updateIds[Int(point.download)]
        })
      try rows.add(
        scope, day: key.day, version: versions.texts[Int(key.version)], firstTs: rowPoints[0].ts,
        packedTimes: packed)
    }
  }

  /// The install_days rows not written yet, the download rows and the
  /// adoption counts.
  mutating func write(_ database: Database, versions: TextNumbering) throws(StoreError) {
    try rows.flush()
    try funnelDownloads.write(database, updates: updates, versions: versions)
    try writeVersionInstalls(database, versions)
    try writeActiveInstalls(database)
  }

  private func writeVersionInstalls(_ database: Database, _ versions: TextNumbering)
    throws(StoreError)
  {
    let addVersion = try database.statement(
      """
      INSERT INTO daily_versions (app_no, is_test, day, app_version, installs) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT DO UPDATE SET installs = installs + excluded.installs
      """)
    try versionInstalls.forEach { (countKey, installs) throws(StoreError) in
      let key = DailyVersionsKey(countKey: countKey)
      try addVersion.bind(1, key.appNo)
      try addVersion.bind(2, Int64(key.isTest ? 1 : 0))
      try addVersion.bind(3, Int64(key.day))
      try addVersion.bind(4, versions.texts[Int(key.version)])
      try addVersion.bind(5, installs)
      try addVersion.run()
    }
  }

  private func writeActiveInstalls(_ database: Database) throws(StoreError) {
    let addDay = try database.statement(
      """
      INSERT INTO daily_active (app_no, is_test, day, installs) VALUES (?, ?, ?, ?)
      ON CONFLICT DO UPDATE SET installs = installs + excluded.installs
      """)
    try activeInstalls.forEach { (key, installs) throws(StoreError) in
      try addDay.bind(1, key.appNo)
      try addDay.bind(2, Int64(key.isTest ? 1 : 0))
      try addDay.bind(3, key.day)
      try addDay.bind(4, installs)
      try addDay.run()
    }
  }

  /// A row of an install's timeline: a day and a version.
  private struct RowKey: Hashable {
    let day: Int32
    let version: Int32
  }

  /// A row of daily_versions: a version's installs on a day.
  private struct DailyVersionsKey {
    let appNo: Int64
    let isTest: Bool
    let day: Int32
    /// A number of the fold's `TextNumbering`: an index, below 2^31.
    let version: Int32

    init(appNo: Int64, isTest: Bool, day: Int32, version: Int32) {
      (self.appNo, self.isTest, self.day, self.version) = (appNo, isTest, day, version)
    }

    /// The app; the day's 32 bits, the test flag, the version's 31.
    var countKey: PairCounts.Key {
      let low = UInt64(UInt32(bitPattern: day)) << 32 | (isTest ? 1 << 31 : 0) | UInt64(version)
      return PairCounts.Key(high: appNo, low: Int64(bitPattern: low))
    }

    init(countKey key: PairCounts.Key) {
      let low = UInt64(bitPattern: key.low)
      self.init(
        appNo: key.high, isTest: low & 1 << 31 != 0, day: Int32(truncatingIfNeeded: low >> 32),
        version: Int32(truncatingIfNeeded: low & 0x7FFF_FFFF))
    }
  }
}
