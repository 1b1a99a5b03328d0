import Glibc

/// An install's hours of each action on one day with one dimension set: a
/// row of install_presence as presence_runs packs it (schema/0010).
struct PresenceEntry: PackedEntry, Equatable {
  var installKey: Int64
  var dimsNo: Int64
  /// Per action (impression, download, later, ignore), bit h for hour h of
  /// the day.
  var hours: SIMD4<Int64>

  /// Runs are sorted by install, then dimension set.
  func precedes(_ other: PresenceEntry) -> Bool {
    installKey != other.installKey ? installKey < other.installKey : dimsNo < other.dimsNo
  }

  func pack(into bytes: inout [UInt8]) {
    installKey.pack(into: &bytes)
    Varint.pack(UInt64(bitPattern: dimsNo), into: &bytes)
    var present: UInt8 = 0
    for action in 0..<4 where hours[action] != 0 { present |= 1 << action }
    bytes.append(present)
    for action in 0..<4 where hours[action] != 0 {
      let bits = hours[action]
      bytes.append(UInt8(truncatingIfNeeded: bits))
      bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
      bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
    }
  }

  /// The entry at `offset` of a presence_runs blob, moving `offset` past
  /// it; nil at the end, or where the blob is cut short.
  static func unpack(_ blob: UnsafeRawBufferPointer, _ offset: inout Int) -> PresenceEntry? {
    guard offset + 10 <= blob.count else { return nil }
    let key = Int64(littleEndian: blob.loadUnaligned(fromByteOffset: offset, as: Int64.self))
    var at = offset + 8
    guard let dims = Varint.unpack(blob, &at), at < blob.count else { return nil }
    let present = blob[at]
    at += 1
    var hours = SIMD4<Int64>()
    for action in 0..<4 where present & (1 << action) != 0 {
      guard at + 3 <= blob.count else { return nil }
      hours[action] =
        Int64(blob[at]) | Int64(blob[at + 1]) << 8 | Int64(blob[at + 2]) << 16
      at += 3
    }
    offset = at
    return PresenceEntry(installKey: key, dimsNo: Int64(bitPattern: dims), hours: hours)
  }

  /// Sorts the entries of a packed blob in place if they are out of order;
  /// their bytes only move, so the blob keeps its size.
  static func sortPacked(_ blob: UnsafeMutableRawBufferPointer) {
    let bytes = UnsafeRawBufferPointer(blob)
    var offset = 0
    var last: PresenceEntry?
    var inOrder = true
    while inOrder, let entry = unpack(bytes, &offset) {
      if let last, !last.precedes(entry) { inOrder = false }
      last = entry
    }
    guard !inOrder else { return }
    var entries: [PresenceEntry] = []
    offset = 0
    while let entry = unpack(bytes, &offset) { entries.append(entry) }
    entries.sort { $0.precedes($1) }
    entries.packed(reservingPerEntry: 14).withUnsafeBytes { blob.copyMemory(from: $0) }
  }
}
