import CSQLite
import Glibc
import UptakeCore

/// Functions Uptake adds to SQLite on every connection, so bulk statements
/// can compute what the Swift code computes, identically.
enum SQLFunctions {
  /// `uptake_install_key(app_no, install_id)`: StableHash.installKey, or
  /// NULL for a NULL install id.
  static func register(_ handle: OpaquePointer) -> Int32 {
    let code = registerInstallKey(handle)
    guard code == SQLITE_OK else { return code }
    return registerInstallKeys(handle)
  }

  private static func registerInstallKey(_ handle: OpaquePointer) -> Int32 {
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

  /// The packed key buffer an `uptake_install_keys` aggregate grows.
  private struct KeyBuffer {
    var bytes: UnsafeMutablePointer<UInt8>?
    var count: Int
    var capacity: Int
  }

  /// `uptake_install_keys(install_key)`, an aggregate: the group's keys
  /// packed as InstallChunks stores them (8 bytes each, little-endian).
  /// Lets a migration pack daily_installs' members in one statement.
  private static func registerInstallKeys(_ handle: OpaquePointer) -> Int32 {
    sqlite3_create_function_v2(
      handle, "uptake_install_keys", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, nil,
      { context, _, arguments in
        guard let arguments, let value = arguments[0],
          let raw = sqlite3_aggregate_context(context, Int32(MemoryLayout<KeyBuffer>.size))
        else { return }
        let buffer = raw.assumingMemoryBound(to: KeyBuffer.self)
        if buffer.pointee.count + 8 > buffer.pointee.capacity {
          let capacity = max(4096, buffer.pointee.capacity * 2)
          guard let grown = realloc(buffer.pointee.bytes, capacity) else {
            sqlite3_result_error_nomem(context)
            return
          }
          buffer.pointee.bytes = grown.assumingMemoryBound(to: UInt8.self)
          buffer.pointee.capacity = capacity
        }
        var key = sqlite3_value_int64(value).littleEndian
        withUnsafeBytes(of: &key) { key in
          (buffer.pointee.bytes! + buffer.pointee.count).update(
            from: key.bindMemory(to: UInt8.self).baseAddress!, count: 8)
        }
        buffer.pointee.count += 8
      },
      { context in
        // Zeroed by SQLite when the group had no rows.
        let raw = sqlite3_aggregate_context(context, 0)
        guard let buffer = raw?.assumingMemoryBound(to: KeyBuffer.self),
          let bytes = buffer.pointee.bytes
        else {
          sqlite3_result_zeroblob(context, 0)
          return
        }
        // SQLite frees the buffer with `free` once it is done with it.
        sqlite3_result_blob64(context, bytes, sqlite3_uint64(buffer.pointee.count)) { free($0) }
        buffer.pointee.bytes = nil
      }, nil)
  }
}
