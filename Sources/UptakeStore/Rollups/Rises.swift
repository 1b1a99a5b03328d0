/// funnel_downloads' `rises` (schema/0016): the install's events (of the
/// row's test flag) that come after one of the row's downloads on a higher
/// version than every event between that download and them. The first event
/// after a download on a version above any given one is always among them,
/// so a funnel finds an install's upgrade in its download row, exactly,
/// for any impression version and any target.
///
/// In time order: the milliseconds since the previous entry (since the
/// row's day start for the first), LEB128, then the version as a length
/// byte and UTF-8 bytes.
enum Rises {
  static func pack(
    _ rises: some Sequence<(ts: Int64, version: String)>, dayStartMs: Int64,
    into bytes: inout [UInt8]
  ) {
    var previous = dayStartMs
    for rise in rises {
      Varint.pack(UInt64(rise.ts - previous), into: &bytes)
      var version = rise.version
      version.withUTF8 { text in
        bytes.append(UInt8(text.count))
        bytes.append(contentsOf: text)
      }
      previous = rise.ts
    }
  }

  /// Calls `body` with each rise in time order (the version's bytes are
  /// valid only inside) until it returns false.
  static func forEach(
    in blob: UnsafeRawBufferPointer, dayStartMs: Int64,
    _ body: (_ ts: Int64, _ version: UnsafeBufferPointer<UInt8>) -> Bool
  ) {
    var offset = 0
    var ts = dayStartMs
    while offset < blob.count, let delta = Varint.unpack(blob, &offset) {
      ts += Int64(delta)
      guard offset < blob.count else { return }
      let length = Int(blob[offset])
      guard offset + 1 + length <= blob.count else { return }
      let version = UnsafeBufferPointer(
        start: blob.baseAddress!.advanced(by: offset + 1).assumingMemoryBound(to: UInt8.self),
        count: length)
      offset += 1 + length
      guard body(ts, version) else { return }
    }
  }
}
