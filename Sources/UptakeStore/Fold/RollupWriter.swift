import UptakeCore

/// Writes a fold's rows into the rollup tables of schema/0002_rollups.sql,
/// schema/0005_dimension_rollups.sql (`DimensionFold`) and the packed
/// members of schema/0007 and 0008 (`InstallChunks`). `RollupFolder`
/// runs it in a transaction and keeps what it learns between folds.
enum RollupWriter {
  /// The reading half of a fold of up to `maxEvents` events: nil when
  /// every event is folded. Call in a transaction; any connection will do.
  static func prepare(_ database: Database, maxEvents: Int) throws(StoreError) -> PreparedFold? {
    let after = try RollupFolder.foldedSeq(database)
    let batch = try FoldBatch.read(database, after: after, maxEvents: maxEvents)
    guard batch.count > 0 else { return nil }
    // While the events are in seq order: see DimensionFold.counts.
    let dimensions = try DimensionFold.prepare(batch, database)
    return PreparedFold(afterSeq: after, batch: batch, dimensions: dimensions)
  }

  /// Writes a fresh prepared fold's rows and records how far folding got.
  /// Call in a write transaction.
  static func write(
    _ prepared: inout PreparedFold, _ membership: BucketMembership, _ database: Database
  ) throws(StoreError) {
    membership.beginFold(after: prepared.afterSeq, prepared.batch)
    // Each part sorts the step's events in the order of the rows it
    // writes; presence takes them in writeSeen's.
    try DimensionFold.write(prepared.dimensions, prepared.batch, database)
    let dimensionNumbers = prepared.dimensions.numbers
    prepared.dimensions = .written
    sortForDaily(&prepared.batch.events)
    try writeDaily(prepared.batch, membership, database)
    try writeSeen(&prepared.batch, database)
    try PresenceWriter.write(prepared.batch.events, numbers: dimensionNumbers, database)
    let record = try database.statement(
      "INSERT OR REPLACE INTO rollups.fold_state (name, value) VALUES (?, ?)")
    try record.bind(1, RollupFolder.foldedSeqName)
    try record.bind(2, prepared.batch.lastSeq)
    try record.run()
  }

  /// daily_counts' key order (bucket, then install), then time and version.
  /// Events equal in all of these differ only in their dimensions, which
  /// `writeDaily` does not read, so the sort need not be stable.
  private static func sortForDaily(_ events: inout [FoldEvent]) {
    events.sortUnstably(by: DailyOrder.self)
  }

  private enum DailyOrder: UnstableSortOrder {
    static func precedes(_ lhs: FoldEvent, _ rhs: FoldEvent) -> Bool {
      if lhs.appNo != rhs.appNo { return lhs.appNo < rhs.appNo }
      if lhs.isTest != rhs.isTest { return !lhs.isTest }
      if lhs.update != rhs.update { return lhs.update < rhs.update }
      if lhs.day != rhs.day { return lhs.day < rhs.day }
      if lhs.action != rhs.action { return lhs.action < rhs.action }
      if lhs.hasInstall != rhs.hasInstall { return lhs.hasInstall }
      if lhs.installKey != rhs.installKey { return lhs.installKey < rhs.installKey }
      if lhs.timestampMs != rhs.timestampMs { return lhs.timestampMs < rhs.timestampMs }
      return lhs.version < rhs.version
    }
  }

  /// daily_counts and the buckets' packed members. Sorted in the buckets'
  /// key order (`sortForDaily`), the events of one bucket and then of one
  /// install within it lie together: `membership` says which of a
  /// bucket's installs it has already, the rest are appended as new
  /// members, and each bucket's counts are written once. Impression
  /// buckets append each new member's first time and version, and again a
  /// known member's whose impression arrived earlier than its first, for
  /// the funnel's cohort.
  private static func writeDaily(
    _ batch: FoldBatch, _ membership: BucketMembership, _ database: Database
  ) throws(StoreError) {
    var writer = try DailyWriter(batch, membership, database)
    let events = batch.events
    var bucketStart = 0
    while bucketStart < events.count {
      var bucketEnd = bucketStart + 1
      while bucketEnd < events.count && events[bucketEnd].sameBucket(as: events[bucketStart]) {
        bucketEnd += 1
      }
      try writer.writeBucket(bucketStart..<bucketEnd)
      bucketStart = bucketEnd
    }
  }

  /// `writeDaily`'s statements, and its buffers for one bucket, kept from
  /// bucket to bucket with their capacity.
  private struct DailyWriter {
    let batch: FoldBatch
    let membership: BucketMembership
    let database: Database
    let counts: Statement
    /// A bucket's latest event so far bounds each member's first
    /// impression from above.
    let storedLastTs: Statement
    let reader: InstallChunks.Reader
    let memberChunks: InstallChunks.Writer<Int64>
    let impressionChunks: InstallChunks.Writer<FirstImpression>
    // Per bucket: the index of each install's earliest event, its keys,
    // the new ones, and the first impressions to append.
    var earliest: [Int] = []
    var installs: [Int64] = []
    var newMembers: [Int64] = []
    var firstImpressions: [FirstImpression] = []

    init(_ batch: FoldBatch, _ membership: BucketMembership, _ database: Database)
      throws(StoreError)
    {
      self.batch = batch
      self.membership = membership
      self.database = database
      counts = try database.statement(
        """
        INSERT INTO daily_counts (app_no, is_test, update_id, day, action, events, installs,
          first_ts, last_ts)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT DO UPDATE SET events = events + excluded.events,
          installs = installs + excluded.installs, first_ts = min(first_ts, excluded.first_ts),
          last_ts = max(last_ts, excluded.last_ts)
        """)
      storedLastTs = try database.statement(
        """
        SELECT last_ts FROM daily_counts
        WHERE app_no = ? AND is_test = ? AND update_id = ? AND day = ? AND action = ?
        """)
      reader = try InstallChunks.Reader(database)
      memberChunks = try InstallChunks.Writer<Int64>(database, table: "daily_install_chunks")
      impressionChunks = try InstallChunks.Writer<FirstImpression>(
        database, table: "funnel_impression_chunks")
    }

    /// The bucket of the events in `range`: its counts and its new members.
    mutating func writeBucket(_ range: Range<Int>) throws(StoreError) {
      let first = batch.events[range.lowerBound]
      let bucket = InstallChunks.Bucket(
        appNo: first.appNo, isTest: first.isTest, updateId: batch.updateIds[Int(first.update)],
        day: Int64(first.day), action: Int(first.action))
      let times = collectInstalls(range)
      if !installs.isEmpty {
        try findNewMembers(
          of: bucket, isImpression: first.action == UInt8(Action.impression.rawValue))
      }
      try counts.bind(1, first.appNo)
      try counts.bind(2, Int64(first.isTest ? 1 : 0))
      try counts.bind(3, bucket.updateId)
      try counts.bind(4, Int64(first.day))
      try counts.bind(5, Int64(first.action))
      try counts.bind(6, range.count)
      try counts.bind(7, newMembers.count)
      try counts.bind(8, times.first)
      try counts.bind(9, times.last)
      try counts.run()
      try memberChunks.append(newMembers, to: bucket)
      try impressionChunks.append(firstImpressions, to: bucket)
      earliest.removeAll(keepingCapacity: true)
      installs.removeAll(keepingCapacity: true)
      newMembers.removeAll(keepingCapacity: true)
      firstImpressions.removeAll(keepingCapacity: true)
    }

    /// The bucket's first and last time; each install's earliest event and
    /// key go to `earliest` and `installs`.
    private mutating func collectInstalls(_ range: Range<Int>) -> (first: Int64, last: Int64) {
      let events = batch.events
      var firstTs = Int64.max
      var lastTs = Int64.min
      var installStart = range.lowerBound
      while installStart < range.upperBound {
        let install = events[installStart]
        var installEnd = installStart + 1
        while installEnd < range.upperBound && events[installEnd].hasInstall == install.hasInstall
          && events[installEnd].installKey == install.installKey
        {
          installEnd += 1
        }
        for event in events[installStart..<installEnd] {
          firstTs = min(firstTs, event.timestampMs)
          lastTs = max(lastTs, event.timestampMs)
        }
        if install.hasInstall {
          earliest.append(installStart)
          installs.append(install.installKey)
        }
        installStart = installEnd
      }
      return (firstTs, lastTs)
    }

    /// The bucket's `installs` that `membership` does not know go to
    /// `newMembers`; in an impression bucket, their first impressions,
    /// and a known member's that came earlier than its first, go to
    /// `firstImpressions`.
    private mutating func findNewMembers(of bucket: InstallChunks.Bucket, isImpression: Bool)
      throws(StoreError)
    {
      let events = batch.events
      let known = try membership.knownMembers(of: bucket, among: installs, reader, database)
      let knownFirsts =
        isImpression && !known.isEmpty
        ? try reader.firstImpressionTimes(
          of: bucket,
          among: try mayMoveEarlier(known, earliest, events, bucket, storedLastTs))
        : [:]
      for index in earliest {
        let event = events[index]
        let isNew = !known.contains(event.installKey)
        if isNew { newMembers.append(event.installKey) }
        // A known member's first impression moves when this one is earlier,
        // or as early: then readers keep the lower version.
        if isImpression && (isNew || event.timestampMs <= knownFirsts[event.installKey] ?? .min) {
          appendFirstImpressions(from: index)
        }
      }
      membership.didAdd(newMembers, to: bucket)
    }

    /// The impression at `index`, an install's earliest in its bucket, and
    /// any other version the install was on at that very time: readers keep
    /// the lowest, whatever order they arrived in.
    private mutating func appendFirstImpressions(from index: Int) {
      let events = batch.events
      let first = events[index]
      var at = index
      while at < events.count && events[at].sameBucket(as: first)
        && events[at].isSameInstall(as: first) && events[at].timestampMs == first.timestampMs
      {
        if at == index || events[at].version != events[at - 1].version {
          firstImpressions.append(
            FirstImpression(
              installKey: first.installKey, timestampMs: first.timestampMs,
              version: batch.versions.texts[Int(events[at].version)]))
        }
        at += 1
      }
    }
  }

  /// The `known` members of an impression bucket whose earliest event in
  /// the step (at `earliest`) may come before their first impression, or at
  /// its time: only those not after the bucket's latest stored event can. Events mostly
  /// arrive in time order, so this spares reading the bucket's first
  /// impressions, a scan of all its chunks, nearly every step.
  private static func mayMoveEarlier(
    _ known: Set<Int64>, _ earliest: [Int], _ events: [FoldEvent], _ bucket: InstallChunks.Bucket,
    _ lastTs: Statement
  ) throws(StoreError) -> Set<Int64> {
    try bucket.bind(to: lastTs)
    defer { lastTs.reset() }
    guard try lastTs.step() else { return known }
    let storedLast = lastTs.int64(0)
    var candidates: Set<Int64> = []
    for index in earliest where events[index].timestampMs <= storedLast {
      if known.contains(events[index].installKey) { candidates.insert(events[index].installKey) }
    }
    return candidates
  }

  /// By install, then time and version. Events of one install equal in
  /// time and version give the same timeline row, so their order does not
  /// matter.
  private enum SeenOrder: UnstableSortOrder {
    static func precedes(_ lhs: FoldEvent, _ rhs: FoldEvent) -> Bool {
      if lhs.hasInstall != rhs.hasInstall { return lhs.hasInstall }
      if lhs.appNo != rhs.appNo { return lhs.appNo < rhs.appNo }
      if lhs.isTest != rhs.isTest { return !lhs.isTest }
      if lhs.installKey != rhs.installKey { return lhs.installKey < rhs.installKey }
      if lhs.timestampMs != rhs.timestampMs { return lhs.timestampMs < rhs.timestampMs }
      return lhs.version < rhs.version
    }
  }

  /// Events whose installs' timelines `writeSeen` holds at once
  /// (`InstallTimelines.Reader`), where it held every timeline of the step.
  static let seenRunEvents = 4_096

  /// install_days, the adoption counts and the funnel's download rows
  /// (`SeenWriter`). Sorted by install and time, each install's events lie
  /// together: its stored timeline is read once, ahead of its run of
  /// installs (`InstallTimelines.Reader`), and the step's points are merged
  /// into it.
  private static func writeSeen(
    _ batch: inout FoldBatch, _ database: Database
  ) throws(StoreError) {
    batch.events.sortUnstably(by: SeenOrder.self)
    var writer = try SeenWriter(database, updateIds: batch.updateIds)
    let events = batch.events
    var reader = try InstallTimelines.Reader(database)
    var runStart = 0
    while runStart < events.count && events[runStart].hasInstall {
      let runEnd = events.endOfInstalls(from: runStart, events: Self.seenRunEvents)
      let run = events[runStart..<runEnd]
      let timelines = try reader.read(run, &batch.versions, &writer.updates)
      writer.rankVersions(&batch.versions)
      var installIndex = 0
      try run.forEachInstall { range throws(StoreError) in
        let known = timelines.timeline(installIndex)
        installIndex += 1
        try writer.addInstall(events[range], known: known, versions: batch.versions)
      }
      runStart = runEnd
    }
    try writer.write(database, versions: batch.versions)
  }
}
