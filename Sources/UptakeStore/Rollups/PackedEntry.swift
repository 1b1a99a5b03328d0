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

/// Unsigned LEB128: 7 bits a byte, low first, the high bit set on all but
/// the last; small numbers (dimension set numbers, counts) take a byte or
/// two.
enum Varint {
  static func pack(_ value: UInt64, into bytes: inout [UInt8]) {
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  /// The number at `offset`, moving `offset` past it; nil where the blob
  /// ends inside it or it runs past 64 bits.
  static func unpack(_ blob: UnsafeRawBufferPointer, _ offset: inout Int) -> UInt64? {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while offset < blob.count {
      let byte = blob[offset]
      offset += 1
      value |= UInt64(byte & 0x7f) << shift
      if byte < 0x80 { return value }
      shift += 7
      if shift > 63 { return nil }
    }
    return nil
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

/// An install's first impression in a bucket, as funnel_impression_chunks
/// packs it: the key and time (8 bytes each, little-endian), then the
/// version's length (one byte; the contract allows 32) and its UTF-8 bytes.
/// A member whose first impression moves earlier (its events arrived out of
/// order) gets a second entry with the earlier time; readers keep each
/// install's earliest.
struct FirstImpression: PackedEntry {
  var installKey: Int64
  var timestampMs: Int64
  var version: String

  func pack(into bytes: inout [UInt8]) {
    installKey.pack(into: &bytes)
    timestampMs.pack(into: &bytes)
    let text = version.utf8.prefix(Int(UInt8.max))
    bytes.append(UInt8(text.count))
    bytes.append(contentsOf: text)
  }

  /// Calls `body` with every entry of a funnel_impression_chunks blob: the
  /// install key, the time, and the version's bytes (valid only inside).
  static func forEachPacked(
    in blob: UnsafeRawBufferPointer,
    _ body: (_ installKey: Int64, _ timestampMs: Int64, _ version: UnsafeBufferPointer<UInt8>)
      -> Void
  ) {
    var offset = 0
    while offset + 17 <= blob.count {
      let key = Int64(littleEndian: blob.loadUnaligned(fromByteOffset: offset, as: Int64.self))
      let ts = Int64(littleEndian: blob.loadUnaligned(fromByteOffset: offset + 8, as: Int64.self))
      let length = Int(blob[offset + 16])
      let start = offset + 17
      guard start + length <= blob.count else { return }
      let version = UnsafeBufferPointer(
        start: blob.baseAddress!.advanced(by: start).assumingMemoryBound(to: UInt8.self),
        count: length)
      body(key, ts, version)
      offset = start + length
    }
  }
}

/// A version change after a download, as funnel_downloads' `later_changes`
/// packs it (schema/0009): the time (8 bytes, little-endian), then the
/// version left and the version reached, each as a length byte and UTF-8.
struct VersionChange: PackedEntry, Equatable {
  var timestampMs: Int64
  var from: String
  var to: String

  func pack(into bytes: inout [UInt8]) {
    timestampMs.pack(into: &bytes)
    for version in [from, to] {
      let text = version.utf8.prefix(Int(UInt8.max))
      bytes.append(UInt8(text.count))
      bytes.append(contentsOf: text)
    }
  }

  /// Calls `body` with every change of a `later_changes` blob: the time and
  /// the two versions' bytes (valid only inside).
  static func forEachPacked(
    in blob: UnsafeRawBufferPointer,
    _ body: (
      _ timestampMs: Int64, _ from: UnsafeBufferPointer<UInt8>, _ to: UnsafeBufferPointer<UInt8>
    ) -> Void
  ) {
    var offset = 0
    func text() -> UnsafeBufferPointer<UInt8>? {
      guard offset < blob.count else { return nil }
      let length = Int(blob[offset])
      guard offset + 1 + length <= blob.count else { return nil }
      defer { offset += 1 + length }
      return UnsafeBufferPointer(
        start: blob.baseAddress!.advanced(by: offset + 1).assumingMemoryBound(to: UInt8.self),
        count: length)
    }
    while offset + 8 <= blob.count {
      let ts = Int64(littleEndian: blob.loadUnaligned(fromByteOffset: offset, as: Int64.self))
      offset += 8
      guard let from = text(), let to = text() else { return }
      body(ts, from, to)
    }
  }
}
