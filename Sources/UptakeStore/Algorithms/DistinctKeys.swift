/// Counts distinct install keys by sorting rather than hashing: for a
/// grouping's installs over a range of days, whose keys arrive as one
/// ascending run a day (a day's presence runs are met in install order).
///
/// Keys are appended, and from time to time sorted and made distinct in
/// place. Swift's sort is a merge sort that finds runs already in order, so
/// the sorted front and the days appended since merge in close to linear
/// time, with sequential memory access. A hash set of the same keys took a
/// cache miss on nearly every insert and was 60% of a 30-day
/// `groupBy=updateId,action` (docs/performance.md).
struct DistinctKeys {
  private var keys: [Int64] = []
  /// Keys at the front that are sorted and distinct.
  private var compacted = 0

  var isEmpty: Bool { keys.isEmpty }

  mutating func insert(_ key: Int64) {
    // An install's rows of a day are met together: its repeats are adjacent.
    if keys.last == key { return }
    keys.append(key)
    // Memory stays within about twice the distinct keys.
    if keys.count >= 2 * compacted + 4096 { compact() }
  }

  /// The number of distinct keys inserted.
  mutating func distinctCount() -> Int {
    if keys.count != compacted { compact() }
    return keys.count
  }

  private mutating func compact() {
    keys.sort()
    let distinct = keys.withUnsafeMutableBufferPointer { buffer -> Int in
      var written = 0
      for key in buffer where written == 0 || buffer[written - 1] != key {
        buffer[written] = key
        written += 1
      }
      return written
    }
    keys.removeLast(keys.count - distinct)
    compacted = distinct
  }
}
