import UptakeCore

/// Events of one app to store together, as one request or one import chunk.
public struct EventBatch: Sendable {
  public let appNo: Int64
  public let events: [Event]
  public let receivedAtMs: Int64

  public init(appNo: Int64, events: [Event], receivedAtMs: Int64) {
    self.appNo = appNo
    self.events = events
    self.receivedAtMs = receivedAtMs
  }
}

/// How one batch fared: events stored, and events skipped as duplicates.
public struct InsertOutcome: Sendable, Equatable {
  public var accepted: Int
  public var duplicates: Int

  public init(accepted: Int = 0, duplicates: Int = 0) {
    self.accepted = accepted
    self.duplicates = duplicates
  }
}

/// Stores batches of validated events with duplicate detection. Owns the
/// write connection's view of the duplicate index, so there is one per
/// writing connection: the daemon's batch writer, or a CLI import.
public final class EventInserter {
  private let database: Database
  private let dedup: DedupIndex
  /// Which installs the fold's buckets have: the fold's own view, as
  /// `dedup` is the inserts'.
  let membership = BucketMembership()

  /// `dedupMergeKeys`: duplicate-index keys held in memory before they are
  /// merged to disk (`DedupIndex`); a bulk import can afford more.
  public init(database: Database, dedupMergeKeys: Int? = nil) {
    self.database = database
    dedup = DedupIndex(mergeThreshold: dedupMergeKeys ?? DedupIndex.defaultMergeThreshold)
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
      throw error
    }
    dedup.didCommit(lastSeq: lastSeq)
    if lastSeq > 0 { lastInsertedSeq = lastSeq }
    unfoldedEvents += outcomes.reduce(0) { $0 + $1.accepted }
    return outcomes
  }

  private func write(_ batches: [EventBatch], lastSeq: inout Int64) throws(StoreError)
    -> [InsertOutcome]
  {
    try database.write { () throws(StoreError) -> [InsertOutcome] in
      try dedup.synchronize(database)
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
      var dedupKeys: [Int64?] = []
      dedupKeys.reserveCapacity(batches.reduce(0) { $0 + $1.events.count })
      for batch in batches {
        for event in batch.events {
          dedupKeys.append(event.id.map { StableHash.dedupKey(appNo: batch.appNo, clientId: $0) })
        }
      }
      dedup.prefetch(dedupKeys)
      var keyIndex = 0
      for batch in batches {
        var outcome = InsertOutcome()
        for event in batch.events {
          var key: Int64?
          defer { keyIndex += 1 }
          if let dedupKey = dedupKeys[keyIndex] {
            if try dedup.contains(dedupKey, database) {
              outcome.duplicates += 1
              continue
            }
            dedup.didInsert(dedupKey)
            key = dedupKey
          }
          try insert.bind(1, batch.appNo)
          try insert.bind(3, key)
          try insert.bind(5, Int64(event.action.rawValue))
          try insert.bind(8, event.timestampMs)
          try insert.bind(9, batch.receivedAtMs)
          try insert.bind(13, Int64(event.isTest ? 1 : 0))
          // Every parameter is bound on every row, so none keeps a value
          // from the last. SQLite copies the texts into buffers it reuses
          // row after row. Binding them without a copy (SQLITE_STATIC)
          // needed an array of them a row, the strings held alive through
          // nested closures and the bindings cleared after each row: the
          // writer spent 222 ticks a million events that way against 198
          // now (100-event batches, three alternated rounds).
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

  /// Folds up to `maxEvents` stored events into the report aggregates and
  /// returns how many it folded (0 when the aggregates are up to date).
  /// Reports are exact either way: they add the events not yet folded.
  @discardableResult
  public func foldRollups(maxEvents: Int = foldStepEvents) throws(StoreError) -> Int {
    let folded = try RollupFolder.fold(database, maxEvents: maxEvents, membership: membership)
    unfoldedEvents = folded < maxEvents ? 0 : max(1, unfoldedEvents - folded)
    return folded
  }

  /// Writes a fold a `FoldPreparer` prepared, or, when another fold came
  /// first, folds the same number of events afresh; returns how many it
  /// folded.
  @discardableResult
  public func foldRollups(_ prepared: consuming PreparedFold) throws(StoreError) -> Int {
    let written = try RollupFolder.write(&prepared, membership: membership, database)
    guard written else { return try foldRollups(maxEvents: prepared.count) }
    unfoldedEvents = max(1, unfoldedEvents - prepared.count)
    return prepared.count
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

  /// The write connection's log size, for `WALCheckpointSchedule`.
  var walBytes: Int { database.walBytes }

  /// See `Database.backfillWriteAheadLog`.
  func backfillWriteAheadLog() throws(StoreError) -> Int32 {
    try database.backfillWriteAheadLog()
  }

  /// See `Database.restartWriteAheadLog`.
  func restartWriteAheadLog() throws(StoreError) -> Bool {
    try database.restartWriteAheadLog()
  }

  /// Copies the WAL into the database file and truncates it, as far as
  /// readers let it (`Database.truncateWriteAheadLog`).
  public func checkpoint() throws(StoreError) {
    _ = try database.truncateWriteAheadLog()
  }

  /// The seq of the last event this inserter stored (0 before any).
  public private(set) var lastInsertedSeq: Int64 = 0

  /// Events stored but maybe not folded into the report aggregates yet. It
  /// starts at 1 so the first maintenance step finds out the real backlog
  /// (events a previous run stored and did not fold).
  public private(set) var unfoldedEvents = 1

  /// Events not folded after which the writer folds even while batches keep
  /// coming. Below it, folding waits for a pause in ingest: a fold writes
  /// each touched page of the install tables once for all its events, so
  /// folding many events at once is what keeps it cheap. Reports add the
  /// unfolded events on every query, which bounds this: at a million events
  /// a report reads them in well under a second, and only under a flood.
  public static let defaultMaxUnfoldedUnderLoad = 1_000_000
  /// This writer's cap (`defaultMaxUnfoldedUnderLoad` unless the operator
  /// trades reports' speed during a flood for ingest's, or the other way).
  public var maxUnfoldedUnderLoad = defaultMaxUnfoldedUnderLoad
  /// Events per fold step when ingest has paused: each step is one
  /// transaction, so a new batch waits at most one step (~0.5 s here).
  public static let foldStepEvents = 50_000
  /// Events per fold step while batches keep coming and the backlog is
  /// under `maxUnfoldedUnderLoad`, so the wait a step adds to requests
  /// stays near 100 ms. Past the cap the writer folds in
  /// `floodFoldStepEvents` steps instead.
  public static let busyFoldStepEvents = 10_000
  /// Events per fold step while batches keep coming past the cap, and the
  /// fold thread's largest step (`FoldWriter`): then the fold must keep
  /// pace with ingest, and its cost an event falls with the
  /// step, as each step writes a page of the rollup tables once for all
  /// its events that land there. Sustained 100-event batches with the fold
  /// on its own thread (`FoldWriter`) and large blocks mapped (uptaked's
  /// main.swift): 181,480–182,226 events/s in 125k steps at 110 MiB peak
  /// RSS, 194,841 in 200k at 127.8 and 196,919–202,065 in 250k at 130.9–131.0
  /// (docs/performance.md); after the step stopped copying its events
  /// and the writer's cache went from 16 to 8 MiB, 250k peaked at 118.7–
  /// 118.9 MiB and 300k ran at 202,538 / 202,828 against 192,110 / 193,144
  /// events/s, peaking at 128.4 / 129.1 MiB. Request p99 stays under half a
  /// second, as the writer waits for one step at a time. Once presence
  /// runs were written in parts (`DimensionFold.writePresence`), 400k ran
  /// at 278,784 / 256,185 / 269,969 / 269,299 events/s against 300k's
  /// 231,360 / 250,038 / 261,818 / 267,554, peaking at 124.1–124.7 MiB
  /// against 113.9–121.9; 500k ran as fast as 400k (258–286k) at up to
  /// 139.3 MiB, too near the 150 MiB the bench allows.
  public static let floodFoldStepEvents = 400_000

  /// True while the duplicate index merges its in-memory level to disk.
  public var isMergingDuplicates: Bool { dedup.isMerging }

  /// Writes the next slice of the duplicate index's merge, in a
  /// transaction of its own: the daemon's writer's only upkeep, as its
  /// fold thread folds.
  public func mergeNextDuplicateChunk() throws(StoreError) {
    try dedup.mergeNextChunk(database)
  }

  /// True when there is upkeep to do: the duplicate index's merge always;
  /// folding events into the aggregates when `mayFold`, or anyway once the
  /// backlog has grown past `maxUnfoldedUnderLoad`.
  public func needsMaintenance(mayFold: Bool) -> Bool {
    dedup.isMerging || unfoldedEvents > (mayFold ? 0 : maxUnfoldedUnderLoad)
  }

  /// Does one step of upkeep: a slice of the duplicate index's merge, or a
  /// fold of stored events into the aggregates: a short one when `busy`, a
  /// long one when busy past `maxUnfoldedUnderLoad`.
  public func performMaintenanceStep(mayFold: Bool, busy: Bool) throws(StoreError) {
    if dedup.isMerging {
      try dedup.mergeNextChunk(database)
      return
    }
    guard needsMaintenance(mayFold: mayFold) else { return }
    if !busy {
      try foldRollups(maxEvents: Self.foldStepEvents)
    } else if unfoldedEvents <= maxUnfoldedUnderLoad {
      try foldRollups(maxEvents: Self.busyFoldStepEvents)
    } else {
      try foldRollups(maxEvents: Self.floodFoldStepEvents)
    }
  }
}
