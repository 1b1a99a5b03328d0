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
