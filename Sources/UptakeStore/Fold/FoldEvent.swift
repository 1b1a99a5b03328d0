import UptakeCore

/// One stored event as a fold needs it, in 48 bytes: texts as numbers of
/// the batch's `TextNumbering`s, so a few million of them sort quickly and
/// fit in memory.
struct FoldEvent {
  var installKey: Int64
  var timestampMs: Int64
  var appNo: Int64
  /// The update id's rank in byte order (`FoldBatch.updateIds[update]`).
  var update: Int32
  /// The app version's number in `FoldBatch.versions`.
  var version: Int32
  var day: Int32
  /// The event's (update, app version, platform, OS version) as an index
  /// of `FoldBatch.dimensionSets`.
  var dimensions: Int32
  var action: UInt8
  var isTest: Bool
  /// False for an event without an `installId`: it counts as an event, but
  /// as no install.
  var hasInstall: Bool

  /// Whether both are events of one install (of one app and test flag).
  func isSameInstall(as other: FoldEvent) -> Bool {
    hasInstall && other.hasInstall && appNo == other.appNo && isTest == other.isTest
      && installKey == other.installKey
  }

  /// Whether both fall in the same daily_counts bucket.
  func sameBucket(as other: FoldEvent) -> Bool {
    appNo == other.appNo && isTest == other.isTest && update == other.update
      && day == other.day && action == other.action
  }
}

extension RandomAccessCollection where Element == FoldEvent, Index == Int {
  /// Calls `body` with the range of each install's events, in order. The
  /// events must be sorted with those that have an install first and each
  /// install's together, as `writeSeen` sorts them; the rest are skipped.
  func forEachInstall<Failure: Error>(_ body: (Range<Int>) throws(Failure) -> Void)
    throws(Failure)
  {
    var start = startIndex
    while start < endIndex && self[start].hasInstall {
      var end = start + 1
      while end < endIndex && self[end].isSameInstall(as: self[start]) { end += 1 }
      try body(start..<end)
      start = end
    }
  }

  /// The end of a run of at least `events` events from `start` (fewer at
  /// the end) that splits no install.
  func endOfInstalls(from start: Int, events: Int) -> Int {
    var end = Swift.min(start + events, endIndex)
    while end < endIndex && self[end].isSameInstall(as: self[end - 1]) { end += 1 }
    return end
  }
}
