import CSQLite

/// A failure of the store. SQLite failures carry the result code, SQLite's
/// message and the SQL, never the bound values (they may be user data).
public enum StoreError: Error, Sendable, CustomStringConvertible {
  case sqlite(code: Int32, message: String, sql: String?)
  case migration(name: String, message: String)
  case notFound(String)
  case conflict(String)
  /// A report would answer more rows than its limit (`ReportQueries.maxRows`).
  case reportTooLarge(maxRows: Int)
  /// A report would hold more distinct installs than its limit
  /// (`ReportQueries.maxInstalls`).
  case reportTooManyInstalls(maxInstalls: Int)
  /// The store of record past one box (a ClickHouse cluster) could not
  /// answer in full: a server or shard is down or refused the query.
  case clusterUnavailable(String)
  /// More events are stored and not folded into the report aggregates than
  /// a report may read as its unfolded tail (`ReportQueries.maxUnfoldedEvents`):
  /// the fold is catching up, as after a migration that folds everything
  /// again, and reports wait for it rather than read it all.
  case foldBehind(unfoldedEvents: Int64, maxEvents: Int)

  /// True when the database cannot take writes right now, but may later:
  /// disk full, read-only, locked by another process, or an I/O error.
  public var isUnavailable: Bool {
    guard case .sqlite(let code, _, _) = self else { return false }
    switch code & 0xFF {
    case SQLITE_FULL, SQLITE_READONLY, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR, SQLITE_CANTOPEN,
      SQLITE_NOMEM:
      return true
    default:
      return false
    }
  }

  /// True when a time limit stopped the statement (`Database.withTimeLimit`).
  public var isInterrupted: Bool { sqliteCode == SQLITE_INTERRUPT }

  /// The primary SQLite result code, when this is a SQLite failure.
  public var sqliteCode: Int32? {
    if case .sqlite(let code, _, _) = self { return code & 0xFF }
    return nil
  }

  public var description: String {
    switch self {
    case .sqlite(let code, let message, let sql):
      if let sql { return "SQLite error \(code): \(message) (in: \(sql))" }
      return "SQLite error \(code): \(message)"
    case .migration(let name, let message):
      return "migration \(name) failed: \(message)"
    case .notFound(let what):
      return "\(what) not found"
    case .conflict(let what):
      return what
    case .reportTooLarge(let maxRows):
      return "the report holds more than \(maxRows) rows"
    case .reportTooManyInstalls(let maxInstalls):
      return "the report holds more than \(maxInstalls) installs"
    case .clusterUnavailable(let message):
      return message
    case .foldBehind(let unfolded, let maxEvents):
      return
        "\(unfolded) events are not folded into the report aggregates yet (more than \(maxEvents))"
    }
  }
}
