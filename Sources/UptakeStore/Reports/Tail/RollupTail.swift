/// The events of one app not folded into the aggregates yet. Reports load
/// it in the same read transaction as the aggregates, so the two together
/// are exactly the stored events. The fold thread keeps it short: it folds
/// once ingest pauses, every few seconds under a trickle, and continuously
/// past half the backlog cap (`FoldThread`).
enum RollupTail {
  /// Loads the app's unfolded events; call inside `Database.read`. With
  /// `maxEvents`, throws `StoreError.foldBehind` when more events than that
  /// (of all apps: the read steps over them all) are unfolded, before
  /// reading any.
  static func load(_ database: Database, appNo: Int64, maxEvents: Int?)
    throws(StoreError) -> RollupDelta
  {
    let after = try RollupFolder.foldedSeq(database)
    if let maxEvents {
      // Sequence numbers are never reused, so this errs high, never low.
      let unfolded = try database.newestEventSeq() - after
      if unfolded > maxEvents { throw .foldBehind(unfoldedEvents: unfolded, maxEvents: maxEvents) }
    }
    return RollupDelta(try FoldBatch.read(database, after: after, appNo: appNo))
  }
}
