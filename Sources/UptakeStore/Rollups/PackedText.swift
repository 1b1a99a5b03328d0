/// A short text inside a packed blob: a length byte, then its UTF-8 bytes.
/// Versions (at most 32 bytes) and update ids (at most 64) always fit.
enum PackedText {
  static func pack(_ text: String, into bytes: inout [UInt8]) {
    var text = text
    text.withUTF8 { utf8 in
      bytes.append(UInt8(utf8.count))
      bytes.append(contentsOf: utf8)
    }
  }

  /// The text at `offset`, moving `offset` past it; nil where the blob ends
  /// inside it. The bytes are valid as long as the blob is.
  static func unpack(_ blob: UnsafeRawBufferPointer, _ offset: inout Int)
    -> UnsafeBufferPointer<UInt8>?
  {
    guard offset < blob.count else { return nil }
    let length = Int(blob[offset])
    guard offset + 1 + length <= blob.count else { return nil }
    defer { offset += 1 + length }
    return UnsafeBufferPointer(
      start: blob.baseAddress!.advanced(by: offset + 1).assumingMemoryBound(to: UInt8.self),
      count: length)
  }
}
