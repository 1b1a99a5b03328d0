// Rows packed into blobs (schema/0007–0009): what an entry is, and the
// three kinds the fold writes and the reports read back.

/// An entry of a packed blob: written by the fold, read back by a report.
protocol PackedEntry {
  func pack(into bytes: inout [UInt8])
}

extension Collection where Element: PackedEntry {
  /// The entries packed one after another, as one blob.
  func packed(reservingPerEntry bytesPerEntry: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count * bytesPerEntry)
    for entry in self { entry.pack(into: &bytes) }
    return bytes
  }
}

/// An install key, 8 bytes little-endian: daily_install_chunks' entries.
extension Int64: PackedEntry {
  func pack(into bytes: inout [UInt8]) {
    withUnsafeBytes(of: littleEndian) { bytes.append(contentsOf: $0) }
  }

  /// Calls `body` with every key of a daily_install_chunks blob.
  static func forEachPacked(in blob: UnsafeRawBufferPointer, _ body: (Int64) -> Void) {
    var offset = 0
    while offset + 8 <= blob.count {
      body(Int64(littleEndian: blob.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
      offset += 8
    }
  }

  /// Sorts a blob of packed keys in place (a block of dedup_blocks).
  static func sortPacked(_ blob: UnsafeMutableRawBufferPointer) {
    var keys: [Int64] = []
    forEachPacked(in: UnsafeRawBufferPointer(blob)) { keys.append($0) }
    keys.sort()
    for (index, key) in keys.enumerated() {
      blob.storeBytes(of: key.littleEndian, toByteOffset: index * 8, as: Int64.self)
    }
  }
}
