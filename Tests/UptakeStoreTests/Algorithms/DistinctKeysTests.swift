import Testing
import UptakeDataGen

@testable import UptakeStore

@Suite("Distinct keys counted by sorting")
struct DistinctKeysTests {
  @Test("equals a set's count, over days of ascending runs with repeats")
  func dayRuns() {
    var generator = SystemRandomNumberGenerator()
    let seed = UInt64.random(in: 0...UInt64.max, using: &generator)
    var random = SeededGenerator(seed: seed)
    let keys = DistinctKeys()
    var reference = Set<Int64>()
    for _ in 0..<40 {
      // A day: a few thousand installs, many seen on earlier days too.
      var day = (0..<Int(random.next() % 6_000)).map { _ in
        Int64(bitPattern: random.next() % 20_000)
      }
      day.sort()
      for key in day {
        keys.insert(key)
        // An install met twice in its day's run.
        if key % 7 == 0 { keys.insert(key) }
        reference.insert(key)
      }
    }
    #expect(keys.distinctCount() == reference.count, "seed \(seed)")
  }

  @Test("keys in any order, negative and zero included")
  func anyOrder() {
    let keys = DistinctKeys()
    #expect(keys.isEmpty && keys.distinctCount() == 0)
    let values: [Int64] = [5, -3, 0, 5, Int64.min, Int64.max, 0, -3, 9]
    for _ in 0..<2_000 {
      for value in values.shuffled() { keys.insert(value) }
    }
    #expect(keys.distinctCount() == Set(values).count)
    keys.insert(42)
    #expect(keys.distinctCount() == Set(values).count + 1)
  }
}
