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
  private let dedup = DedupIndex()

  public init(database: Database) {
    self.database = database
  }

  /// Stores all batches in one transaction: all of them are committed when
  /// this returns, or none is when it throws.
  public func insert(_ batches: [EventBatch]) throws(StoreError) -> [InsertOutcome] {
    var newKeys: [Int64] = []
    var lastSeq: Int64 = 0
    let outcomes = try database.write { () throws(StoreError) -> [InsertOutcome] in
      try dedup.synchronize(database)
      var keysInTransaction = Set<Int64>()
      var outcomes: [InsertOutcome] = []
      outcomes.reserveCapacity(batches.count)
      let insert = try database.statement(
        """
        INSERT INTO events (app_no, client_id, dedup_key, update_id, action, app_version,
          install_id, ts, received_at, os_version, platform, previous_app_version, is_test)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """)
      for batch in batches {
        var outcome = InsertOutcome()
        for event in batch.events {
          var key: Int64?
          if let id = event.id {
            let dedupKey = StableHash.dedupKey(appNo: batch.appNo, clientId: id)
            var isDuplicate = keysInTransaction.contains(dedupKey)
            if !isDuplicate { isDuplicate = try dedup.contains(dedupKey, database) }
            if isDuplicate {
              outcome.duplicates += 1
              continue
            }
            keysInTransaction.insert(dedupKey)
            key = dedupKey
          }
          try insert.bind(1, batch.appNo)
          try insert.bind(2, event.id)
          try insert.bind(3, key)
          try insert.bind(4, event.updateId)
          try insert.bind(5, Int64(event.action.rawValue))
          try insert.bind(6, event.appVersion)
          try insert.bind(7, event.installId)
          try insert.bind(8, event.timestampMs)
          try insert.bind(9, batch.receivedAtMs)
          try insert.bind(10, event.osVersion)
          try insert.bind(11, event.platform?.rawValue)
          try insert.bind(12, event.previousAppVersion)
          try insert.bind(13, Int64(event.isTest ? 1 : 0))
          try insert.run()
          lastSeq = database.lastInsertRowID
          outcome.accepted += 1
        }
        outcomes.append(outcome)
      }
      newKeys = Array(keysInTransaction)
      return outcomes
    }
    dedup.didCommit(keys: newKeys, lastSeq: lastSeq)
    return outcomes
  }

  /// Copies the WAL into the database file and truncates it.
  public func checkpoint() throws(StoreError) {
    try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
  }

  /// True while the duplicate index has merge work left (see DedupIndex).
  public var hasMaintenanceWork: Bool { dedup.isMerging }

  /// Does one short step of the duplicate index's merge.
  public func performMaintenanceStep() throws(StoreError) {
    try dedup.mergeNextChunk(database)
  }
}
