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
    pack(times, dayStartMs: dayStartMs, into: &bytes, ts: { $0.ts }, download: { $0.download })
  }

  /// Packs `times` as above, each time and download taken from an element
  /// by `ts` and `download`: the fold packs its timeline points, numbers
  /// all, where a copy of them with their update ids as Strings cost it the
  /// copies' retains and releases (docs/performance.md, session 32).
  static func pack<Times: RandomAccessCollection>(
    _ times: Times, dayStartMs: Int64, into bytes: inout [UInt8],
    ts: (Times.Element) -> Int64, download: (Times.Element) -> String?
  ) where Times.Index == Int {
    var previous = dayStartMs
    var index = times.startIndex
    while index < times.endIndex {
      let time = ts(times[index])
      var end = index + 1
      while end < times.endIndex && ts(times[end]) == time { end += 1 }
      // Counted in place: an array of a time's downloads was an allocation
      // for every point the fold writes.
      let downloads = times[index..<end].reduce(0) { $0 + (download($1) == nil ? 0 : 1) }
      Varint.pack(UInt64(time - previous) << 1 | (downloads == 0 ? 0 : 1), into: &bytes)
      if downloads > 0 {
        Varint.pack(UInt64(downloads), into: &bytes)
        for element in times[index..<end] {
          if let update = download(element) { PackedText.pack(update, into: &bytes) }
        }
      }
      previous = time
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
