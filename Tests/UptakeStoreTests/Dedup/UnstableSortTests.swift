import Testing

@testable import UptakeStore

@Suite("sortUnstably: the order the standard sort gives, in place")
struct UnstableSortTests {
  /// Pairs sorted by their key alone: equal keys may come in any order,
  /// so results are compared as keys and as multisets.
  struct Keyed: Hashable {
    var key: Int
    var tag: Int
  }

  enum ByKey: UnstableSortOrder {
    static func precedes(_ lhs: Keyed, _ rhs: Keyed) -> Bool { lhs.key < rhs.key }
  }

  enum Ascending: UnstableSortOrder {
    static func precedes(_ lhs: Int, _ rhs: Int) -> Bool { lhs < rhs }
  }

  typealias Event = (bucket: Int, install: Int64, ts: Int)

  enum ByBucketInstallTime: UnstableSortOrder {
    static func precedes(_ lhs: Event, _ rhs: Event) -> Bool {
      if lhs.bucket != rhs.bucket { return lhs.bucket < rhs.bucket }
      if lhs.install != rhs.install { return lhs.install < rhs.install }
      return lhs.ts < rhs.ts
    }
  }

  static let shapes: [(name: String, make: @Sendable (Int) -> [Int])] = [
    (
      "random, many equal",
      { count in (0..<count).map { _ in Int.random(in: 0..<(count / 4 + 1)) } }
    ),
    ("random, distinct", { count in Array(0..<count).shuffled() }),
    ("ascending", { count in Array(0..<count) }),
    ("descending", { count in Array((0..<count).reversed()) }),
    ("all equal", { count in Array(repeating: 7, count: count) }),
    ("organ pipe", { count in (0..<count).map { min($0, count - $0) } }),
  ]

  @Test(
    "every shape and size, through quicksort and insertion sort",
    arguments: [0, 1, 2, 3, 24, 25, 26, 100, 1_000, 20_000])
  func matchesTheStandardSort(count: Int) {
    for (name, make) in Self.shapes {
      let keys = make(count)
      let original = keys.enumerated().map { Keyed(key: $0.element, tag: $0.offset) }
      var sorted = original
      sorted.sortUnstably(by: ByKey.self)
      #expect(sorted.map(\.key) == keys.sorted(), "\(name), \(count) elements")
      #expect(Set(sorted) == Set(original), "\(name), \(count): the same elements")
    }
  }

  @Test("past its depth limit it finishes with heapsort", arguments: [0, 1, 3])
  func heapsortFallback(depthLimit: Int) {
    for (name, make) in Self.shapes {
      let keys = make(5_000)
      var sorted = keys
      sorted.sortUnstably(by: Ascending.self, depthLimit: depthLimit)
      #expect(sorted == keys.sorted(), "\(name), depth limit \(depthLimit)")
    }
  }

  @Test("a multi-field order, as the fold's sorts use")
  func multiField() {
    let events = (0..<50_000).map { _ in
      (
        bucket: Int.random(in: 0..<50), install: Int64.random(in: 0..<2_000),
        ts: Int.random(in: 0..<10)
      )
    }
    var sorted = events
    sorted.sortUnstably(by: ByBucketInstallTime.self)
    let expected = events.sorted(by: ByBucketInstallTime.precedes)
    #expect(sorted.map(\.bucket) == expected.map(\.bucket))
    #expect(sorted.map(\.install) == expected.map(\.install))
    #expect(sorted.map(\.ts) == expected.map(\.ts))
  }

  @Test(
    "selection puts the sorted element in place, the smaller before and the larger after",
    arguments: [1, 2, 3, 24, 25, 26, 100, 1_000, 20_000])
  func selectionMatchesTheSort(count: Int) {
    for (name, make) in Self.shapes {
      let keys = make(count)
      let sorted = keys.sorted()
      for position in Set([0, count / 2, count - 1, Int.random(in: 0..<count)]) {
        for depthLimit in [nil, 0, 2] {
          var selected = keys
          selected.selectUnstably(position, by: Ascending.self, depthLimit: depthLimit)
          let context =
            "\(name), \(count) elements, position \(position), depth \(depthLimit ?? -1)"
          #expect(selected[position] == sorted[position], "\(context)")
          #expect(selected[..<position].allSatisfy { $0 <= selected[position] }, "\(context)")
          #expect(selected[(position + 1)...].allSatisfy { $0 >= selected[position] }, "\(context)")
          #expect(selected.sorted() == sorted, "\(context): the same elements")
        }
      }
    }
  }

  @Test(
    "the median by selection equals the median of the sorted values",
    arguments: [1, 2, 7, 50, 51, 4_000, 4_001])
  func medianBySelection(count: Int) {
    let values = (0..<count).map { _ in Double(Int.random(in: 0..<(count / 3 + 2))) / 7 }
    let sorted = values.sorted()
    let middle = count / 2
    let expected = count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    #expect(ReportQueries.median(values) == expected)
    #expect(ReportQueries.median([]) == nil)
  }
}
