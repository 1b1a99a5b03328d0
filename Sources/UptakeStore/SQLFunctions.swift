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
      { registerPack($0, .versionChange) }, registerPackPresence,
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
  /// first_version)` and `uptake_pack_changes(ts, from_version,
  /// to_version)`, aggregates: the group's entries packed as they are
  /// stored (`Int64`, `FirstImpression`, `VersionChange`), so a migration
  /// packs existing rows in one statement. The user data says which.
  private enum PackKind: Int {
    case installKey = 1
    case firstImpression, versionChange
  }

  private static func registerPack(_ handle: OpaquePointer, _ kind: PackKind) -> Int32 {
    sqlite3_create_function_v2(
      handle, kind == .versionChange ? "uptake_pack_changes" : "uptake_pack",
      kind == .installKey ? 1 : 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
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
        case .installKey:
          integer(0).pack(into: &entry)
        case .firstImpression:
          FirstImpression(installKey: integer(0), timestampMs: integer(1), version: text(2))
            .pack(into: &entry)
        case .versionChange:
          VersionChange(timestampMs: integer(0), from: text(1), to: text(2)).pack(into: &entry)
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

  /// The entries an `uptake_pack_presence` aggregate collects.
  /// What an `uptake_pack_presence` aggregate has so far: the entries
  /// packed while they come in order (SQLite reads install_presence in key
  /// order, ~14 bytes an entry), or all of them to sort once one does not.
  private final class PresenceEntries {
    var packed: [UInt8] = []
    var last: PresenceEntry?
    var unsorted: [PresenceEntry]?

    func add(_ entry: PresenceEntry) {
      if unsorted != nil {
        unsorted!.append(entry)
      } else if let last, !last.precedes(entry) {
        var entries: [PresenceEntry] = []
        packed.withUnsafeBytes { bytes in
          var offset = 0
          while let earlier = PresenceEntry.unpack(bytes, &offset) { entries.append(earlier) }
        }
        entries.append(entry)
        unsorted = entries
        packed = []
      } else {
        entry.pack(into: &packed)
        last = entry
      }
    }

    /// The run: the entries sorted, packed.
    func run() -> [UInt8] {
      guard var entries = unsorted else { return packed }
      entries.sort { $0.precedes($1) }
      return PresenceEntry.packed(entries)
    }
  }

  /// `uptake_pack_presence(install_key, dims_no, impression_hours,
  /// download_hours, later_hours, ignore_hours)`, an aggregate: the group's
  /// rows as a presence_runs blob (schema/0010). It sorts them itself when
  /// they come out of order, so the blob is a run whatever order SQLite
  /// feeds the rows in.
  private static func registerPackPresence(_ handle: OpaquePointer) -> Int32 {
    typealias Slot = UnsafeMutableRawPointer?
    return sqlite3_create_function_v2(
      handle, "uptake_pack_presence", 6, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, nil,
      { context, _, arguments in
        guard let arguments,
          let raw = sqlite3_aggregate_context(context, Int32(MemoryLayout<Slot>.size))
        else { return }
        let slot = raw.assumingMemoryBound(to: Slot.self)
        if slot.pointee == nil {
          slot.pointee = Unmanaged.passRetained(PresenceEntries()).toOpaque()
        }
        let collected = Unmanaged<PresenceEntries>.fromOpaque(slot.pointee!).takeUnretainedValue()
        func integer(_ index: Int) -> Int64 { arguments[index].map(sqlite3_value_int64) ?? 0 }
        collected.add(
          PresenceEntry(
            installKey: integer(0), dimsNo: integer(1),
            hours: SIMD4(integer(2), integer(3), integer(4), integer(5))))
      },
      { context in
        // Zeroed by SQLite when the group had no rows.
        let raw = sqlite3_aggregate_context(context, 0)
        guard let slot = raw?.assumingMemoryBound(to: Slot.self), let opaque = slot.pointee else {
          sqlite3_result_zeroblob(context, 0)
          return
        }
        slot.pointee = nil
        let collected = Unmanaged<PresenceEntries>.fromOpaque(opaque).takeRetainedValue()
        collected.run().withUnsafeBytes {
          sqlite3_result_blob64(
            context, $0.baseAddress, sqlite3_uint64($0.count), uptake_sqlite_transient())
        }
      }, nil)
  }
}
