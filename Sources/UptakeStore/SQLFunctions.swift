import CSQLite
import UptakeCore

/// Functions Uptake adds to SQLite on every connection, so bulk statements
/// can compute what the Swift code computes, identically.
enum SQLFunctions {
  /// `uptake_install_key(app_no, install_id)`: StableHash.installKey, or
  /// NULL for a NULL install id.
  static func register(_ handle: OpaquePointer) -> Int32 {
    sqlite3_create_function_v2(
      handle, "uptake_install_key", 2,
      SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil,
      { context, _, arguments in
        guard let arguments, let appNo = arguments[0], let installId = arguments[1],
          sqlite3_value_type(installId) != SQLITE_NULL, let text = sqlite3_value_text(installId)
        else {
          sqlite3_result_null(context)
          return
        }
        let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(installId)))
        sqlite3_result_int64(
          context, StableHash.installKey(appNo: sqlite3_value_int64(appNo), utf8: bytes))
      }, nil, nil, nil)
  }
}
