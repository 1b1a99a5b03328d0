import Testing
import UptakeDataGen

@testable import UptakeStore

@Suite("RecentKeys: the duplicate index's recent level as a tail and sorted runs")
struct RecentKeysTests {
  /// Random keys from a fixed seed, some of them repeated.
  static func keys(_ count: Int, seed: UInt64) -> [Int64] {
    var generator = SeededGenerator(seed: seed)
    var keys: [Int64] = []
    for index in 0..<count {
      // Every seventh key repeats an earlier one, as a retried batch would.
      if index % 7 == 6 {
        keys.append(keys[Int(generator.next() % UInt64(keys.count))])
      } else {
        keys.append(Int64(bitPattern: generator.next()))
      }
    }
    return keys
  }

  @Test(
    "finds every key inserted and no other, and sorts them all, across the tail's edges",
    arguments: [
      0, 1, RecentKeys.tailLimit - 1, RecentKeys.tailLimit, RecentKeys.tailLimit + 1,
      5 * RecentKeys.tailLimit + 3, 40_000,
    ])
  func holdsWhatWasInserted(count: Int) {
    let inserted = Self.keys(count, seed: UInt64(count) + 1)
    var recent = RecentKeys()
    for key in inserted { recent.insert(key) }

    #expect(recent.count == count)
    #expect(recent.isEmpty == (count == 0))
    #expect(inserted.allSatisfy { recent.contains($0) })
    let insertedSet = Set(inserted)
    let absent = Self.keys(2_000, seed: 99).filter { !insertedSet.contains($0) }
    #expect(!absent.contains { recent.contains($0) })
    #expect(recent.sorted() == inserted.sorted())
    var visited: [Int64] = []
    recent.forEach { visited.append($0) }
    #expect(visited.sorted() == inserted.sorted())
  }

  @Test("built from an array, as a restart loads it, it holds the same keys")
  func builtFromArray() {
    let inserted = Self.keys(10_000, seed: 7)
    let recent = RecentKeys(inserted)
    #expect(recent.count == inserted.count)
    #expect(recent.sorted() == inserted.sorted())
    #expect(inserted.allSatisfy { recent.contains($0) })
  }

  @Test("merging keeps order, repeats and the edges of both sides")
  func merge() {
    #expect(RecentKeys.merge([], []) == [])
    #expect(RecentKeys.merge([1, 3], []) == [1, 3])
    #expect(RecentKeys.merge([], [2]) == [2])
    #expect(
      RecentKeys.merge([.min, 1, 3, 3, 9], [0, 3, 4, .max]) == [.min, 0, 1, 3, 3, 3, 4, 9, .max])
  }
}
