import UptakeCore

/// A moment of an install's timeline as a fold holds it: seen at `ts` on a
/// version, and when the event was a download, of which update. Versions
/// and updates are numbers of the fold's `TextNumbering`s.
struct TimelinePoint: Equatable {
  var ts: Int64
  var version: Int32
  /// The downloaded update's number, or `TimelinePoint.noDownload`.
  var download: Int32

  static let noDownload: Int32 = -1

  var day: Int32 { Int32(Timestamp.dayNumber(ms: ts)) }

  /// Time order, then version and download: a total order, so a timeline
  /// sorts the same whatever order its points came in.
  func precedes(_ other: TimelinePoint) -> Bool {
    if ts != other.ts { return ts < other.ts }
    if version != other.version { return version < other.version }
    return download < other.download
  }
}

extension RandomAccessCollection where Element == TimelinePoint, Index == Int {
  /// The index of the first point at or after `ts` in a timeline sorted by
  /// time.
  func firstIndex(notBefore ts: Int64) -> Int {
    var (low, high) = (startIndex, endIndex)
    while low < high {
      let middle = (low + high) / 2
      if self[middle].ts < ts { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
