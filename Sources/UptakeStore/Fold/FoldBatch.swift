import UptakeCore

/// The events after the folded seq, read in one pass for one fold.
struct FoldBatch {
  var events: [FoldEvent] = []
  /// Update ids by rank: events carry the rank, so sorting by it is
  /// sorting by the text as daily_counts' key does.
  var updateIds: [String] = []
  var versions = TextNumbering()
  /// The distinct (update, app version, platform, OS version) of the
  /// batch's events, per app.
  var dimensionSets: [DimensionSet] = []
  /// Events read, including any skipped for an unknown action code.
  var count = 0
  var lastSeq: Int64 = 0

  /// The columns every read of events for the aggregates selects, in the
  /// order `read(_:after:capacity:)` reads them.
  private static let columns = """
    SELECT seq, app_no, update_id, action, app_version, install_id, ts, is_test, platform,
      os_version
    FROM events
    """

  /// Reads up to `maxEvents` events with seq above `after`: a fold step.
  static func read(_ database: Database, after: Int64, maxEvents: Int) throws(StoreError)
    -> FoldBatch
  {
    let statement = try database.statement(
      "\(columns) WHERE seq > ? ORDER BY seq LIMIT ?")
    try statement.bind(1, after)
    try statement.bind(2, maxEvents)
    return try read(statement, after: after, capacity: min(maxEvents, 1 << 20))
  }

  /// Reads one app's events with seq above `after`: the unfolded tail that
  /// reports add to the rollups (`RollupTail`), projected as a fold
  /// projects them, so the two cannot disagree on what an event counts as.
  static func read(_ database: Database, after: Int64, appNo: Int64) throws(StoreError)
    -> FoldBatch
  {
    // The seq (rowid) range is the few unfolded events. `+app_no` keeps the
    // planner on it should an index on app_no ever come back (one did until
    // schema/0006).
    let statement = try database.statement("\(columns) WHERE seq > ? AND +app_no = ?")
    try statement.bind(1, after)
    try statement.bind(2, appNo)
    return try read(statement, after: after, capacity: 0)
  }

  /// The rows of `statement`, which selects `columns`, as a batch: the one
  /// projection of a stored event onto what the aggregates need. Events of
  /// an action code this build does not know are counted and skipped.
  private static func read(_ statement: Statement, after: Int64, capacity: Int)
    throws(StoreError) -> FoldBatch
  {
    var batch = FoldBatch()
    batch.lastSeq = after
    var updates = TextNumbering()
    var optionalTexts = TextNumbering()
    var dimensionNumbers = DimensionNumbering()
    batch.events.reserveCapacity(capacity)
    while try statement.step() {
      batch.lastSeq = statement.int64(0)
      batch.count += 1
      // A report's tail stops at its time limit like the rest of it.
      if batch.count & 4095 == 0 { try statement.database.checkTimeLimit() }
      let action = statement.int64(3)
      guard Action(rawValue: Int(action)) != nil else { continue }
      let appNo = statement.int64(1)
      let hasInstall = !statement.isNull(5)
      let installKey =
        hasInstall ? statement.withText(5) { StableHash.installKey(appNo: appNo, utf8: $0) } : 0
      let timestampMs = statement.int64(6)
      let update = statement.withText(2) { updates.number($0) }
      let version = statement.withText(4) { batch.versions.number($0) }
      func optional(_ column: Int32) -> Int32 {
        statement.isNull(column) ? -1 : statement.withText(column) { optionalTexts.number($0) }
      }
      let codes = DimensionCodes(
        appNo: appNo, update: update, version: version, platform: optional(8),
        osVersion: optional(9))
      let dimensions = dimensionNumbers.number(codes)
      batch.events.append(
        FoldEvent(
          installKey: installKey, timestampMs: timestampMs, appNo: appNo, update: update,
          version: version, day: Int32(Timestamp.dayNumber(ms: timestampMs)),
          dimensions: dimensions, action: UInt8(action), isTest: statement.int64(7) != 0,
          hasInstall: hasInstall))
    }
    statement.reset()
    batch.dimensionSets = dimensionNumbers.codes.map { codes in
      batch.dimensionSet(codes, updates: updates, optionalTexts: optionalTexts)
    }
    batch.rankUpdates(updates)
    return batch
  }

  /// The update id of one of the batch's events.
  func updateId(of event: FoldEvent) -> String { updateIds[Int(event.update)] }

  /// The app version of one of the batch's events.
  func appVersion(of event: FoldEvent) -> String { versions.texts[Int(event.version)] }

  /// The dimension set (and so the platform and OS version) of one of the
  /// batch's events.
  func dimensionSet(of event: FoldEvent) -> DimensionSet { dimensionSets[Int(event.dimensions)] }

  /// The texts of a dimension set's numbers; -1 is a missing optional text.
  private func dimensionSet(
    _ codes: DimensionCodes, updates: TextNumbering, optionalTexts: TextNumbering
  ) -> DimensionSet {
    func optionalText(_ number: Int32) -> String? {
      number < 0 ? nil : optionalTexts.texts[Int(number)]
    }
    return DimensionSet(
      appNo: codes.appNo, updateId: updates.texts[Int(codes.update)],
      appVersion: versions.texts[Int(codes.version)],
      platform: optionalText(codes.platform), osVersion: optionalText(codes.osVersion))
  }

  /// Replaces the events' update numbers (in the order first read) by
  /// their ranks in byte order, and fills `updateIds`.
  private mutating func rankUpdates(_ updates: TextNumbering) {
    let ranks = updates.byteOrderRanks()
    updateIds = [String](repeating: "", count: ranks.count)
    for (number, rank) in ranks.enumerated() { updateIds[Int(rank)] = updates.texts[number] }
    for index in events.indices {
      events[index].update = ranks[Int(events[index].update)]
    }
  }
}
