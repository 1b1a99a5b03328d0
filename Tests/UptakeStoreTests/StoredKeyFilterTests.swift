import Testing
import UptakeCore

@testable import UptakeStore

@Suite("StoredKeyFilter: a Bloom filter without false negatives")
struct StoredKeyFilterTests {
  @Test("every inserted key may be contained; few others are")
  func noFalseNegatives() {
    var filter = StoredKeyFilter()
    let inserted = (0..<200_000).map { StableHash.dedupKey(appNo: 1, clientId: "in-\($0)") }
    for key in inserted { filter.insert(key) }
    let others = (0..<200_000).map { StableHash.dedupKey(appNo: 1, clientId: "out-\($0)") }

    #expect(inserted.allSatisfy { filter.mayContain($0) })
    let falsePositives = others.filter { filter.mayContain($0) }.count
    #expect(falsePositives < 200, "\(falsePositives) of 200,000 absent keys passed")
  }

  @Test("an empty filter contains nothing")
  func empty() {
    #expect(!StoredKeyFilter().mayContain(StableHash.dedupKey(appNo: 1, clientId: "a")))
  }
}
