import UptakeCore

/// Stores batches of validated events with duplicate detection and the
/// cap on distinct values per app and day. Owns the write connection's
/// view of the duplicate index and of the values stored, so there is one
/// per writing connection: the daemon's batch writer, or a CLI import.
public final class EventInserter {
  private let database: Database
  private let dedup: DedupIndex
  private var distinctValues: DistinctValueCap

  /// `dedupMergeKeys`: duplicate-index keys held in memory before they are
  /// merged to disk (`DedupIndex`); a bulk import can afford more.
  /// `maxDistinctPerDay`: distinct values of each capped field an app may
  /// have per day (`DailyDistinctValues`).
  public init(
    database: Database, dedupMergeKeys: Int? = nil,
    maxDistinctPerDay: Int = EventInserter.defaultMaxDistinctPerDay
  ) {
    self.database = database
    dedup = DedupIndex(mergeThreshold: dedupMergeKeys ?? DedupIndex.defaultMergeThreshold)
    distinctValues = DistinctValueCap(limit: maxDistinctPerDay)
  }

  /// Distinct values of `updateId`, `appVersion` and `osVersion`, each, an
  /// app may have per UTC day unless configured otherwise.
  public static let defaultMaxDistinctPerDay = DistinctValueCap.defaultLimit

  /// The highest limit `--max-distinct-per-day` may set (`uptaked` and
  /// `uptake import` alike): the writer holds every value of the days in
  /// play, up to apps x 92 days x 3 x N, and a million a field and day
  /// (hundreds of MB per app under attack) is already more than a report
  /// can group usefully. There is no "off": a client holding the public
  /// ingest key could then grow the reports without bound again.
  public static let highestMaxDistinctPerDay = 1_000_000

  /// The limit `--max-distinct-per-day N` sets: N, the default for 0, nil
  /// past `highestMaxDistinctPerDay`.
  public static func maxDistinctPerDay(flag value: Int) -> Int? {
    guard (0...highestMaxDistinctPerDay).contains(value) else { return nil }
    return value == 0 ? defaultMaxDistinctPerDay : value
  }

  /// Reads the distinct values of the days in play from what is stored, in
  /// a read transaction, so the first batch does not wait for it; without
  /// this call the first write does it. Returns what it found and cost.
  @discardableResult
  public func loadDistinctValues() throws(StoreError) -> (
    values: Int, tailEvents: Int, seconds: Double
  ) {
    let loaded = try database.read { () throws(StoreError) in try distinctValues.load(database) }
    return (loaded.values, loaded.tailEvents, loaded.seconds)
  }

  /// Merges every key of the duplicate index still in memory to disk, so
  /// the next writer to open the database (the daemon) starts with an empty
  /// recent level instead of rebuilding a bulk writer's large one.
  public func mergeDuplicateKeys() throws(StoreError) {
    while dedup.isMerging { try dedup.mergeNextChunk(database) }
    dedup.mergeRecentNow()
    while dedup.isMerging { try dedup.mergeNextChunk(database) }
  }

  /// Stores all batches in one transaction: all of them are committed when
  /// this returns, or none is when it throws.
  public func insert(_ batches: [EventBatch]) throws(StoreError) -> [InsertOutcome] {
    var lastSeq: Int64 = 0
    let outcomes: [InsertOutcome]
    do {
      outcomes = try write(batches, lastSeq: &lastSeq)
    } catch {
      dedup.didRollBack()
      distinctValues.didRollBack()
      throw error
    }
    dedup.didCommit(lastSeq: lastSeq)
    distinctValues.didCommit(lastSeq: lastSeq)
    if lastSeq > 0 { lastInsertedSeq = lastSeq }
    return outcomes
  }

  private func write(_ batches: [EventBatch], lastSeq: inout Int64) throws(StoreError)
    -> [InsertOutcome]
  {
    try database.write { () throws(StoreError) -> [InsertOutcome] in
      // Read once for both: each catches up to the events stored since.
      let newest = try database.newestEventSeq()
      try dedup.synchronize(database, newestSeq: newest)
      try distinctValues.synchronize(database, newestSeq: newest)
      var outcomes: [InsertOutcome] = []
      outcomes.reserveCapacity(batches.count)
      let insert = try database.statement(
        """
        INSERT INTO events (app_no, client_id, dedup_key, update_id, action, app_version,
          install_id, ts, received_at, os_version, platform, previous_app_version, is_test)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """)
      // Every key first, so the duplicate index can load what their
      // lookups will read all at once (`DedupIndex.prefetch`).
      let dedupKeys = Self.dedupKeys(of: batches)
      dedup.prefetch(dedupKeys)
      var keyIndex = 0
      for batch in batches {
        var outcome = InsertOutcome()
        for (index, event) in batch.events.enumerated() {
          let key = dedupKeys[keyIndex]
          keyIndex += 1
          // A duplicate first: a retried event is a duplicate whatever
          // the cap says, as its values were stored with it.
          if let key, try dedup.contains(key, database) {
            outcome.duplicates += 1
            continue
          }
          if let refusal = distinctValues.admit(event, appNo: batch.appNo) {
            outcome.rejected.append(Rejection(index: index, error: refusal.message))
            continue
          }
          if let key { dedup.didInsert(key) }
          try insert.bind(1, batch.appNo)
          try insert.bind(3, key)
          try insert.bind(5, Int64(event.action.rawValue))
          try insert.bind(8, event.timestampMs)
          try insert.bind(9, batch.receivedAtMs)
          try insert.bind(13, Int64(event.isTest ? 1 : 0))
          // Every parameter is bound on every row, so none keeps a value
          // from the last (`run()` keeps the bindings). SQLite copies the
          // texts, each binding freeing the copy it replaces. Binding them
          // without a copy (SQLITE_STATIC) needed an array of them a row,
          // the strings held alive through nested closures and the bindings
          // cleared after each row, and cost the writer more
          // (docs/performance.md).
          try insert.bind(2, event.id)
          try insert.bind(4, event.updateId)
          try insert.bind(6, event.appVersion)
          try insert.bind(7, event.installId)
          try insert.bind(10, event.osVersion)
          try insert.bind(11, event.platform?.rawValue)
          try insert.bind(12, event.previousAppVersion)
          try insert.run()
          lastSeq = database.lastInsertRowID
          outcome.accepted += 1
        }
        outcomes.append(outcome)
      }
      return outcomes
    }
  }

  /// Each event's duplicate-index key, in order; nil for an event without
  /// an `id`, which is never a duplicate.
  private static func dedupKeys(of batches: [EventBatch]) -> [Int64?] {
    var keys: [Int64?] = []
    keys.reserveCapacity(batches.reduce(0) { $0 + $1.events.count })
    for batch in batches {
      for event in batch.events {
        keys.append(event.id.map { StableHash.dedupKey(appNo: batch.appNo, clientId: $0) })
      }
    }
    return keys
  }

  /// Bytes the storage probe writes: enough pages that a full disk or a
  /// database at its `--max-db-size` refuses it, little enough to cost
  /// nothing while storage is healthy.
  static let probeBytes = 64 * 1024

  /// Commits a small write that needs new space, to learn whether storage
  /// takes writes again after a failed commit. The probe table is created and
  /// filled in one transaction, and dropped in a second, so the file keeps
  /// the pages as free space for the next batch and the schema keeps nothing.
  public func probeWritableSpace() throws(StoreError) {
    try database.write { () throws(StoreError) in
      try database.execute("CREATE TABLE IF NOT EXISTS uptake_space_probe (filler BLOB)")
      try database.execute(
        "INSERT INTO uptake_space_probe (filler) VALUES (zeroblob(\(Self.probeBytes)))")
    }
    try database.write { () throws(StoreError) in
      try database.execute("DROP TABLE uptake_space_probe")
    }
  }

  /// The seq of the last event this inserter stored (0 before any).
  public private(set) var lastInsertedSeq: Int64 = 0

  /// True while the duplicate index merges its in-memory level to disk.
  public var isMergingDuplicates: Bool { dedup.isMerging }

  /// Writes the next slice of the duplicate index's merge, in a
  /// transaction of its own: the writer's upkeep between commits.
  public func mergeNextDuplicateChunk() throws(StoreError) {
    try dedup.mergeNextChunk(database)
  }
}
