import Testing
import UptakeDataGen

@testable import UptakeStore

@Suite("Counts per key of two words")
struct PairCountsTests {
  @Test("equal a dictionary's, through growth, over keys of every sign")
  func matchesDictionary() throws {
    var generator = SystemRandomNumberGenerator()
    let seed = UInt64.random(in: 0...UInt64.max, using: &generator)
    var random = SeededGenerator(seed: seed)
    var counts = PairCounts()
    var reference: [[Int64]: Int] = [:]
    let extremes: [Int64] = [0, -1, 1, Int64.min, Int64.max]
    for _ in 0..<50_000 {
      // Few distinct keys, as a fold step's days and versions are, and
      // now and then one of the extremes.
      let high =
        random.next() % 50 == 0
        ? extremes[Int(random.next() % 5)] : Int64(bitPattern: random.next() % 3)
      let low =
        random.next() % 50 == 0
        ? extremes[Int(random.next() % 5)] : Int64(bitPattern: random.next() % 700)
      let amount = Int(random.next() % 3) + 1
      counts.add(PairCounts.Key(high: high, low: low), amount)
      reference[[high, low], default: 0] += amount
    }
    var seen: [[Int64]: Int] = [:]
    counts.forEach { key, count in
      #expect(seen[[key.high, key.low]] == nil, "a key once, seed \(seed)")
      seen[[key.high, key.low]] = count
    }
    #expect(seen == reference, "seed \(seed)")
    #expect(counts.count == reference.count, "seed \(seed)")
  }

  @Test("a day's key gives back its app, test flag and day, negative ones too")
  func dayKeysRoundTrip() {
    for (appNo, isTest, day) in [
      (Int64(1), false, Int64(20_428)), (7, true, 20_428), (Int64.max, true, -3), (0, false, 0),
    ] {
      let key = PairCounts.Key(appNo: appNo, isTest: isTest, day: day)
      #expect(key.appNo == appNo && key.isTest == isTest && key.day == day)
    }
    #expect(
      PairCounts.Key(appNo: 1, isTest: true, day: 5)
        != PairCounts.Key(appNo: 1, isTest: false, day: 5))
  }

  @Test("an empty table has nothing to give")
  func empty() {
    let counts = PairCounts()
    var visited = 0
    counts.forEach { _, _ in visited += 1 }
    #expect(visited == 0 && counts.count == 0)
  }
}
