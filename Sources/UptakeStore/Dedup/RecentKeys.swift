/// The duplicate index's recent level (`DedupIndex`): the keys of the
/// events stored since the last merge, as a short unsorted tail and a few
/// sorted runs.
///
/// Why not a `Set`: every ingested event probed it and then inserted into
/// it, each a random access into a table of many MiB, a cache miss apiece,
/// with a SipHash before each; and the merge sorted its keys afterwards
/// anyway. Here an insert appends to the tail; every
/// `tailLimit` keys the tail is sorted into a run, and runs of like size
/// are merged, so the sizes at least double from the newest to the oldest
/// and each key is copied about log2(count / tailLimit) times, in order. A
/// lookup scans the tail and binary-searches each run: slower than a hash
/// probe, but `DedupIndex` looks up only the keys its filter does not rule
/// out, about one in a hundred.
struct RecentKeys {
  /// Keys the tail holds before it is sorted into a run: a lookup scans it
  /// whole, 8 KiB.
  static let tailLimit = 1024

  /// Keys inserted since the last run was made, in insertion order.
  private var tail: [Int64] = []
  /// Sorted runs, oldest and largest first.
  private var runs: [[Int64]] = []
  /// Keys inserted (a key inserted twice counts twice).
  private(set) var count = 0

  init() {
    tail.reserveCapacity(Self.tailLimit)
  }

  init(_ keys: [Int64]) {
    self.init()
    for key in keys { insert(key) }
  }

  var isEmpty: Bool { count == 0 }

  func contains(_ key: Int64) -> Bool {
    tail.contains(key) || runs.contains { Self.sortedContains($0, key) }
  }

  mutating func insert(_ key: Int64) {
    tail.append(key)
    count += 1
    if tail.count >= Self.tailLimit { sortTail() }
  }

  /// Every key inserted, ascending.
  func sorted() -> [Int64] {
    runs.reversed().reduce(tail.sorted()) { Self.merge($1, $0) }
  }

  /// Calls `body` with every key inserted, in no particular order.
  func forEach(_ body: (Int64) -> Void) {
    for key in tail { body(key) }
    for run in runs {
      for key in run { body(key) }
    }
  }

  private mutating func sortTail() {
    var run = tail.sorted()
    tail.removeAll(keepingCapacity: true)
    while let last = runs.last, last.count <= run.count {
      run = Self.merge(runs.removeLast(), run)
    }
    runs.append(run)
  }

  /// Two ascending arrays as one.
  static func merge(_ left: [Int64], _ right: [Int64]) -> [Int64] {
    guard !left.isEmpty else { return right }
    guard !right.isEmpty else { return left }
    return [Int64](unsafeUninitializedCapacity: left.count + right.count) { merged, count in
      left.withUnsafeBufferPointer { left in
        right.withUnsafeBufferPointer { right in
          var (l, r, m) = (0, 0, 0)
          while l < left.count && r < right.count {
            if right[r] < left[l] {
              merged.initializeElement(at: m, to: right[r])
              r += 1
            } else {
              merged.initializeElement(at: m, to: left[l])
              l += 1
            }
            m += 1
          }
          while l < left.count {
            merged.initializeElement(at: m, to: left[l])
            (l, m) = (l + 1, m + 1)
          }
          while r < right.count {
            merged.initializeElement(at: m, to: right[r])
            (r, m) = (r + 1, m + 1)
          }
        }
      }
      count = left.count + right.count
    }
  }

  /// Whether the ascending `keys` hold `key`.
  static func sortedContains(_ keys: [Int64], _ key: Int64) -> Bool {
    var low = 0
    var high = keys.count
    while low < high {
      let middle = (low + high) / 2
      if keys[middle] < key { low = middle + 1 } else { high = middle }
    }
    return low < keys.count && keys[low] == key
  }
}
