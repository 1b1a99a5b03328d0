import CSQLite
import Foundation

/// The daemon's fold writes the rollups file without syncing it, and this
/// is how a start knows whether the file can still be trusted.
///
/// Why unsynced: the rollups file's syncs at its checkpoints made the
/// daemon write its aggregates to disk as often as it folded, each fold
/// rewriting the install-keyed pages it touched, and the events' own
/// commits queued behind those writes for the disk (docs/performance.md).
///
/// Why that is safe: the aggregates are derived from the events, which
/// are synced at every commit. SQLite keeps an unsynced file whole when a
/// process crashes (the kernel has every write); only a crash of the
/// machine or a power cut can leave it corrupt or behind its fold state.
/// So before the fold's first unsynced write, the daemon records in the
/// events file (synced) the boot of the machine it runs in, and a clean
/// stop clears the record once the rollups file is synced whole. A
/// connection that finds a boot other than the running one recorded knows
/// the machine went down while the file was unsynced: it deletes the
/// rollups file before attaching it, and the fold builds it again from the
/// events (`RollupsFile.place`).
enum UnsyncedRollups {
  /// The record's name in the events file's store_state.
  static let stateName = "rollups_unsynced_boot"

  /// Why `RollupsFile.place` rebuilds after a discard.
  static let discardReason =
    "the machine restarted while the rollups file was written without syncing"

  /// The running boot of the machine, from the kernel's random boot id;
  /// nil where there is none to read, and then the fold syncs as before.
  static let currentBoot: Int64? = {
    guard
      let text = try? String(
        contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
    else { return nil }
    let digits = text.filter(\.isHexDigit).prefix(16)
    guard digits.count == 16, let bits = UInt64(digits, radix: 16) else { return nil }
    return Int64(bitPattern: bits)
  }()

  /// Records, through the events file's writer, that the rollups file may
  /// be written unsynced during this boot. False, recording nothing, where
  /// the boot cannot be told: the fold must then keep syncing.
  static func record(in database: Database) throws(StoreError) -> Bool {
    guard let boot = currentBoot else { return false }
    try database.write { () throws(StoreError) in try store(boot, in: database) }
    return true
  }

  /// Records `boot`. Call in a write transaction.
  private static func store(_ boot: Int64, in database: Database) throws(StoreError) {
    let record = try database.statement(
      "INSERT OR REPLACE INTO main.store_state (name, value) VALUES (?, ?)")
    try record.bind(1, stateName)
    try record.bind(2, boot)
    try record.run()
  }

  /// Clears the record, once the rollups file is synced whole.
  static func clear(in database: Database) throws(StoreError) {
    try database.write { () throws(StoreError) in try forget(in: database) }
  }

  /// Deletes the record. Call in a write transaction.
  private static func forget(in database: Database) throws(StoreError) {
    let clear = try database.statement("DELETE FROM main.store_state WHERE name = ?")
    try clear.bind(1, stateName)
    try clear.run()
  }

  /// Deletes the rollups file at `rollupsPath` when `database`'s events
  /// file records an earlier boot: true when it did. Call before the file
  /// is attached. Only the events file's write lock is taken, and only
  /// when the record is stale: then no process of this boot has attached
  /// the rollups file yet, since each looks here first and the one that
  /// deletes records this boot in the same transaction.
  static func discardIfStale(_ database: Database, rollupsPath: String) throws(StoreError) -> Bool {
    guard try isStale(database) else { return false }
    return try database.write { () throws(StoreError) -> Bool in
      guard try isStale(database) else { return false }
      for suffix in ["", "-wal", "-shm"] {
        if unlink(rollupsPath + suffix) != 0 && errno != ENOENT {
          throw .sqlite(
            code: SQLITE_IOERR,
            message: "cannot remove \(rollupsPath + suffix): "
              + String(cString: strerror(errno)), sql: nil)
        }
      }
      // What is built now is unsynced in this boot until a clean stop;
      // where boots cannot be told, nothing is written unsynced.
      if let boot = currentBoot { try store(boot, in: database) } else { try forget(in: database) }
      return true
    }
  }

  private static func isStale(_ database: Database) throws(StoreError) -> Bool {
    // A new events file has no store_state before its migrations.
    guard try database.hasTable("store_state", in: "main"),
      let recorded = try database.scalarInt(
        "SELECT value FROM main.store_state WHERE name = '\(stateName)'")
    else { return false }
    return recorded != currentBoot
  }
}
