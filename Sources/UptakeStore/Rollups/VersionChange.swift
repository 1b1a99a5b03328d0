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
