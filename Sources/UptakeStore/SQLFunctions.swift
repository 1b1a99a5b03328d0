import CSQLite
import Glibc
import UptakeCore

/// Functions Uptake adds to SQLite on every connection, so bulk statements
/// can compute what the Swift code computes, identically.
enum SQLFunctions {
  /// `uptake_install_key(app_no, install_id)`: StableHash.installKey, or
  /// NULL for a NULL install id.
  static func register(_ handle: OpaquePointer) -> Int32 {
    for register in [
      registerInstallKey, { registerPack($0, arguments: 1) }, { registerPack($0, arguments: 3) },
    ] {
      let code = register(handle)
      guard code == SQLITE_OK else { return code }
    }
    return SQLITE_OK
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

  /// The buffer an `uptake_pack` aggregate grows (malloc'd, handed to SQLite).
  private struct PackBuffer {
    var bytes: UnsafeMutablePointer<UInt8>?
    var count: Int
    var capacity: Int

    mutating func append(_ entry: [UInt8]) -> Bool {
      if count + entry.count > capacity {
        let grown = max(4096, capacity * 2, count + entry.count)
        guard let resized = realloc(bytes, grown) else { return false }
        bytes = resized.assumingMemoryBound(to: UInt8.self)
        capacity = grown
      }
      entry.withUnsafeBufferPointer {
        (bytes! + count).update(from: $0.baseAddress!, count: $0.count)
      }
      count += entry.count
      return true
    }
  }

  /// `uptake_pack(install_key)` and `uptake_pack(install_key, first_ts,
  /// first_version)`, aggregates: the group's entries packed as
  /// InstallChunks stores them (`Int64` and `FirstImpression`), so a
  /// migration packs daily_installs' members in one statement.
  private static func registerPack(_ handle: OpaquePointer, arguments count: Int32) -> Int32 {
    sqlite3_create_function_v2(
      handle, "uptake_pack", count, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, nil,
      { context, count, arguments in
        guard let arguments, let key = arguments[0],
          let raw = sqlite3_aggregate_context(context, Int32(MemoryLayout<PackBuffer>.size))
        else { return }
        var entry: [UInt8] = []
        if count == 3, let ts = arguments[1], let version = arguments[2] {
          let text = sqlite3_value_text(version)
          let length = Int(sqlite3_value_bytes(version))
          FirstImpression(
            installKey: sqlite3_value_int64(key), timestampMs: sqlite3_value_int64(ts),
            version: text.map {
              String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
            } ?? ""
          ).pack(into: &entry)
        } else {
          sqlite3_value_int64(key).pack(into: &entry)
        }
        let buffer = raw.assumingMemoryBound(to: PackBuffer.self)
        if !buffer.pointee.append(entry) { sqlite3_result_error_nomem(context) }
      },
      { context in
        // Zeroed by SQLite when the group had no rows.
        let raw = sqlite3_aggregate_context(context, 0)
        guard let buffer = raw?.assumingMemoryBound(to: PackBuffer.self),
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
