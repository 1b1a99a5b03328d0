import UptakeCore

/// The events of one app not folded into the aggregates yet. Reports load
/// it in the same read transaction as the aggregates, so the two together
/// are exactly the stored events. It stays small: the writer folds whenever
/// it is idle (see BatchWriter).
enum RollupTail {
  /// Loads the app's unfolded events; call inside `Database.read`.
  static func load(_ database: Database, appNo: Int64) throws(StoreError) -> RollupDelta {
    let after = try RollupFolder.foldedSeq(database)
    var delta = RollupDelta()
    // The seq (rowid) range is the few unfolded events. `+app_no` keeps the
    // planner on it should an index on app_no ever come back (one did until
    // schema/0006).
    let statement = try database.statement(
      """
      SELECT app_no, update_id, action, app_version, install_id, ts, is_test, platform, os_version
      FROM events WHERE seq > ? AND +app_no = ?
      """)
    try statement.bind(1, after)
    try statement.bind(2, appNo)
    while try statement.step() {
      if let event = event(statement) { delta.add(event) }
    }
    statement.reset()
    return delta
  }

  /// Reads (app_no, update_id, action, app_version, install_id, ts, is_test, platform,
  /// os_version).
  private static func event(_ statement: Statement) -> RollupEvent? {
    let appNo = statement.int64(0)
    guard let action = Action(rawValue: statement.int(2)) else { return nil }
    let installKey = statement.optionalString(4).map {
      StableHash.installKey(appNo: appNo, installId: $0)
    }
    return RollupEvent(
      appNo: appNo, isTest: statement.int(6) != 0,
      updateId: statement.string(1), action: action,
      appVersion: statement.string(3), installKey: installKey,
      timestampMs: statement.int64(5), platform: statement.optionalString(7),
      osVersion: statement.optionalString(8))
  }
}
