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
      PackedText.pack(rise.version, into: &bytes)
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
      guard let version = PackedText.unpack(blob, &offset), body(ts, version) else { return }
    }
  }
}
