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
      registerInstallKey, { registerPack($0, .installKey) }, { registerPack($0, .firstImpression) },
      { registerPack($0, .versionChange) }, { registerPack($0, .presence) },
      { registerPack($0, .dimensionCount) }, { registerPack($0, .sortedKeys) },
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

  /// `uptake_pack(install_key)`, `uptake_pack(install_key, first_ts,
  /// first_version)`, `uptake_pack_changes(ts, from_version, to_version)`,
  /// `uptake_pack_presence(install_key, dims_no, impression_hours,
  /// download_hours, later_hours, ignore_hours)` and
  /// `uptake_pack_counts(dims_no, action, hour_of_day, events)` and
  /// `uptake_pack_sorted_keys(key)`, aggregates: the group's entries packed
  /// as they are stored (`Int64`, `FirstImpression`, `VersionChange`,
  /// `PresenceEntry`, `DimensionCount`, `Int64`), so a migration packs
  /// existing rows in one statement. The user data says which. A presence
  /// run and a block of dedup keys must be sorted: their entries are sorted
  /// at the end if SQLite fed them out of order (it reads those tables in
  /// key order, so they come sorted).
  private enum PackKind: Int {
    case installKey = 1
    case firstImpression, versionChange, presence, dimensionCount, sortedKeys

    var name: String {
      switch self {
      case .installKey, .firstImpression: "uptake_pack"
      case .versionChange: "uptake_pack_changes"
      case .presence: "uptake_pack_presence"
      case .dimensionCount: "uptake_pack_counts"
      case .sortedKeys: "uptake_pack_sorted_keys"
      }
    }

    var argumentCount: Int32 {
      switch self {
      case .installKey, .sortedKeys: 1
      case .firstImpression, .versionChange: 3
      case .dimensionCount: 4
      case .presence: 6
      }
    }
  }

  private static func registerPack(_ handle: OpaquePointer, _ kind: PackKind) -> Int32 {
    sqlite3_create_function_v2(
      handle, kind.name, kind.argumentCount, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
      UnsafeMutableRawPointer(bitPattern: kind.rawValue), nil,
      { context, _, arguments in
        guard let arguments,
          let kind = PackKind(rawValue: Int(bitPattern: sqlite3_user_data(context))),
          let raw = sqlite3_aggregate_context(context, Int32(MemoryLayout<PackBuffer>.size))
        else { return }
        func text(_ index: Int) -> String {
          guard let value = arguments[index], let text = sqlite3_value_text(value) else {
            return ""
          }
          let count = Int(sqlite3_value_bytes(value))
          return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
        }
        func integer(_ index: Int) -> Int64 { arguments[index].map(sqlite3_value_int64) ?? 0 }
        var entry: [UInt8] = []
        switch kind {
        case .installKey, .sortedKeys:
          integer(0).pack(into: &entry)
        case .firstImpression:
          FirstImpression(installKey: integer(0), timestampMs: integer(1), version: text(2))
            .pack(into: &entry)
        case .versionChange:
          VersionChange(timestampMs: integer(0), from: text(1), to: text(2)).pack(into: &entry)
        case .presence:
          PresenceEntry(
            installKey: integer(0), dimsNo: integer(1),
            hours: SIMD4(integer(2), integer(3), integer(4), integer(5))
          ).pack(into: &entry)
        case .dimensionCount:
          DimensionCount(
            dimsNo: integer(0), action: UInt8(truncatingIfNeeded: integer(1)),
            hourOfDay: UInt8(truncatingIfNeeded: integer(2)), events: integer(3)
          ).pack(into: &entry)
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
        let packed = UnsafeMutableRawBufferPointer(start: bytes, count: buffer.pointee.count)
        switch PackKind(rawValue: Int(bitPattern: sqlite3_user_data(context))) {
        case .presence: PresenceEntry.sortPacked(packed)
        case .sortedKeys: Int64.sortPacked(packed)
        default: break
        }
        // SQLite frees the buffer with `free` once it is done with it.
        sqlite3_result_blob64(context, bytes, sqlite3_uint64(buffer.pointee.count)) { free($0) }
        buffer.pointee.bytes = nil
      }, nil)
  }
}
