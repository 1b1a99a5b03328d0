/// funnel_downloads' `downloads` (schema/0016): every distinct time the
/// install downloaded the row's update that day, so a funnel takes the
/// first at or after the install's first impression, wherever that falls
/// in the day. In time order, each as the milliseconds since the previous
/// one (since the day's start for the first), LEB128.
enum DownloadTimes {
  static func pack(_ times: some Sequence<Int64>, dayStartMs: Int64, into bytes: inout [UInt8]) {
    var previous = dayStartMs
    for ts in times {
      Varint.pack(UInt64(ts - previous), into: &bytes)
      previous = ts
    }
  }

  /// The first time at or after `notBefore`, or nil.
  static func first(
    atOrAfter notBefore: Int64, in blob: UnsafeRawBufferPointer, dayStartMs: Int64
  ) -> Int64? {
    var offset = 0
    var ts = dayStartMs
    while offset < blob.count, let delta = Varint.unpack(blob, &offset) {
      ts += Int64(delta)
      if ts >= notBefore { return ts }
    }
    return nil
  }
}
