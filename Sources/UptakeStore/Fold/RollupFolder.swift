/// Folds stored events into the report aggregates through one connection:
/// the one owner of folding, which the daemon's fold thread
/// (`FoldThread`) runs for the daemon and for `uptake import` alike.
///
/// Why fold in bulk instead of updating the aggregates with every batch:
/// distinct install counts need one row per install and bucket, and
/// install ids are random, so per-batch upkeep dirtied a random page per
/// event (docs/performance.md). A fold aggregates many events in memory
/// and writes each row once, in key order (`RollupWriter`). The events
/// themselves are the durable log: `rollup_folded_seq` says how far the
/// aggregates have got, a crash only means folding again from there, and
/// reports add the events after it (`RollupTail`), so they are exact at
/// every moment.
public final class RollupFolder {
  /// The name of the folded seq in the rollups file's fold_state.
  static let foldedSeqName = "rollup_folded_seq"

  private let database: Database
  /// Which installs the buckets have, remembered between this
  /// connection's folds.
  let membership = BucketMembership()

  /// Folds through `database`, which must have the rollups file attached.
  public init(database: Database) {
    self.database = database
  }

  /// The seq of the last event folded into the aggregates.
  static func foldedSeq(_ database: Database) throws(StoreError) -> Int64 {
    let statement = try database.statement("SELECT value FROM rollups.fold_state WHERE name = ?")
    try statement.bind(1, foldedSeqName)
    defer { statement.reset() }
    return try statement.step() ? statement.int64(0) : 0
  }

  /// Folds up to `maxEvents` stored events in one transaction and returns
  /// how many it folded (0 when the aggregates are up to date).
  @discardableResult
  public func fold(maxEvents: Int) throws(StoreError) -> Int {
    var folded = 0
    try committing { () throws(StoreError) -> Int64? in
      guard var prepared = try RollupWriter.prepare(database, maxEvents: maxEvents) else {
        return nil
      }
      try RollupWriter.write(&prepared, membership, database)
      folded = prepared.count
      return prepared.batch.lastSeq
    }
    return folded
  }

  /// Writes a fold read on any connection (`RollupWriter.prepare`) in a
  /// transaction of its own or, when another fold came first and it is
  /// stale, folds as many events afresh; returns how many it folded.
  @discardableResult
  func fold(_ prepared: consuming PreparedFold) throws(StoreError) -> Int {
    let count = prepared.count
    let written = try committing { () throws(StoreError) -> Int64? in
      guard try Self.foldedSeq(database) == prepared.afterSeq else { return nil }
      try RollupWriter.write(&prepared, membership, database)
      return prepared.batch.lastSeq
    }
    return written ? count : try fold(maxEvents: count)
  }

  /// Runs a fold's write transaction and tells `membership` how it ended:
  /// `body` returns the folded seq it wrote the rows up to, or nil when it
  /// wrote nothing. Returns whether it wrote.
  @discardableResult
  private func committing(_ body: () throws(StoreError) -> Int64?) throws(StoreError) -> Bool {
    do {
      guard let foldedSeq = try database.write(body) else { return false }
      membership.didCommit(through: foldedSeq)
      return true
    } catch {
      membership.forget()
      throw error
    }
  }
}
