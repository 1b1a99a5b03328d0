/// install_days' `times` (schema/0016): every distinct time an install was
/// seen on the row's version that day, and the updates it downloaded at
/// each, so the funnel's download links can be worked out again from the
/// rows alone whatever order the events arrived in.
///
/// Entries in time order: the milliseconds since the previous entry (since
/// the day's start for the first) shifted left by one, the low bit set when
/// downloads follow, as LEB128; then, with downloads, their count (LEB128)
/// and each update id as a length byte and UTF-8 bytes. An install is seen
/// a few times a day, so a row holds a few bytes.
enum SeenTimes {
  /// Packs `times`, sorted by time, each with the update downloaded then
  /// (nil for another action); a time repeats for each download at it.
  static func pack(
    _ times: [(ts: Int64, download: String?)], dayStartMs: Int64, into bytes: inout [UInt8]
  ) {
    var previous = dayStartMs
    var index = 0
    while index < times.count {
      let ts = times[index].ts
      var end = index + 1
      while end < times.count && times[end].ts == ts { end += 1 }
      // Counted in place: an array of a time's downloads was an allocation
      // for every point the fold writes.
      let downloads = times[index..<end].reduce(0) { $0 + ($1.download == nil ? 0 : 1) }
      Varint.pack(UInt64(ts - previous) << 1 | (downloads == 0 ? 0 : 1), into: &bytes)
      if downloads > 0 {
        Varint.pack(UInt64(downloads), into: &bytes)
        for time in times[index..<end] {
          if let update = time.download { PackedText.pack(update, into: &bytes) }
        }
      }
      previous = ts
      index = end
    }
  }

  /// Calls `body` once for each time without downloads and once for each
  /// download of the others, in time order; the update's bytes are valid
  /// only inside. Stops at a malformed entry.
  static func forEach(
    in blob: UnsafeRawBufferPointer, dayStartMs: Int64,
    _ body: (_ ts: Int64, _ download: UnsafeBufferPointer<UInt8>?) -> Void
  ) {
    var offset = 0
    var ts = dayStartMs
    while offset < blob.count {
      guard let entry = Varint.unpack(blob, &offset) else { return }
      ts += Int64(entry >> 1)
      guard entry & 1 == 1 else {
        body(ts, nil)
        continue
      }
      guard let count = Varint.unpack(blob, &offset) else { return }
      for _ in 0..<count {
        guard let update = PackedText.unpack(blob, &offset) else { return }
        body(ts, update)
      }
    }
  }
}
