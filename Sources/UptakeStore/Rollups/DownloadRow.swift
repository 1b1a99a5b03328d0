/// An install's downloads of an update on a day, as funnel_download_chunks
/// packs it (schema/0019): the install key (8 bytes, little-endian), then
/// the `downloads` blob (`DownloadTimes`) and the `rises` blob (`Rises`),
/// each after its length (LEB128).
struct DownloadRow: PackedEntry {
  var installKey: Int64
  var downloads: [UInt8]
  var rises: [UInt8]

  func pack(into bytes: inout [UInt8]) {
    installKey.pack(into: &bytes)
    Varint.pack(UInt64(downloads.count), into: &bytes)
    bytes.append(contentsOf: downloads)
    Varint.pack(UInt64(rises.count), into: &bytes)
    bytes.append(contentsOf: rises)
  }

  /// Calls `body` with every entry of a funnel_download_chunks blob: the
  /// install key and its two blobs (valid only inside).
  static func forEachPacked(
    in blob: UnsafeRawBufferPointer,
    _ body: (
      _ installKey: Int64, _ downloads: UnsafeRawBufferPointer, _ rises: UnsafeRawBufferPointer
    ) -> Void
  ) {
    var offset = 0
    while offset + 8 <= blob.count {
      let key = Int64(littleEndian: blob.loadUnaligned(fromByteOffset: offset, as: Int64.self))
      offset += 8
      guard let downloads = part(of: blob, at: &offset), let rises = part(of: blob, at: &offset)
      else { return }
      body(key, downloads, rises)
    }
  }

  /// The bytes after a length at `offset`, which moves past them; nil when
  /// the blob ends first.
  private static func part(of blob: UnsafeRawBufferPointer, at offset: inout Int)
    -> UnsafeRawBufferPointer?
  {
    guard let length = Varint.unpack(blob, &offset), length <= UInt64(blob.count - offset) else {
      return nil
    }
    let start = offset
    offset += Int(length)
    return UnsafeRawBufferPointer(rebasing: blob[start..<offset])
  }
}
