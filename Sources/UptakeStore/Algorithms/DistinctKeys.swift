import Glibc

/// Counts distinct install keys by sorting rather than hashing: for a
/// grouping's installs over a range of days, whose keys arrive as ascending
/// runs (each of a day's presence runs is in install order).
///
/// Keys are appended, and from time to time sorted and made distinct in
/// place. Swift's sort is a merge sort that finds runs already in order, so
/// the sorted front and the runs appended since merge in close to linear
/// time, with sequential memory access. A hash set of the same keys took a
/// cache miss on nearly every insert and was 60% of a 30-day
/// `groupBy=updateId,action` (docs/performance.md).
///
/// A class owning its buffer, so the hot loop's appends pay no uniqueness
/// check of an array, nor of the array of these a grouping keeps.
final class DistinctKeys {
  private var keys: UnsafeMutablePointer<Int64>?
  private var count = 0
  private var capacity = 0
  /// Keys at the front that are sorted and distinct.
  private var compacted = 0

  deinit { free(keys) }

  var isEmpty: Bool { count == 0 }

  @inline(__always)
  func insert(_ key: Int64) {
    // An install's rows of a day in one run are adjacent: its repeats too.
    if count > 0 && keys![count - 1] == key { return }
    if count == capacity { grow() }
    keys![count] = key
    count += 1
    // Memory stays within about twice the distinct keys.
    if count >= 2 * compacted + 4096 { compact() }
  }

  /// The number of distinct keys inserted.
  func distinctCount() -> Int {
    if count != compacted { compact() }
    return count
  }

  private func grow() {
    let grown = max(1024, capacity * 2)
    guard let resized = realloc(keys, grown * MemoryLayout<Int64>.stride) else {
      preconditionFailure("out of memory for \(grown) install keys")
    }
    keys = resized.assumingMemoryBound(to: Int64.self)
    capacity = grown
  }

  private func compact() {
    var buffer = UnsafeMutableBufferPointer(start: keys, count: count)
    buffer.sort()
    var written = 0
    for key in buffer where written == 0 || buffer[written - 1] != key {
      buffer[written] = key
      written += 1
    }
    count = written
    compacted = written
  }
}
