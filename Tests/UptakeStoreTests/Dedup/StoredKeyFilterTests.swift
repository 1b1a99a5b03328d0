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

  @Test("a copy keeps its own bits, as a value does")
  func copiesOnWrite() {
    let first = StableHash.dedupKey(appNo: 1, clientId: "first")
    let second = StableHash.dedupKey(appNo: 1, clientId: "second")
    var original = StoredKeyFilter()
    original.insert(first)
    var copy = original
    copy.insert(second)
    #expect(copy.mayContain(first) && copy.mayContain(second))
    #expect(original.mayContain(first) && !original.mayContain(second))

    let (one, two) = (
      MemberFilter.key(bucket: 7, install: 1), MemberFilter.key(bucket: 7, install: 2)
    )
    var members = MemberFilter(members: 1_000)
    members.insert(one)
    var membersCopy = members
    membersCopy.insert(two)
    #expect(membersCopy.mayContain(one) && membersCopy.mayContain(two))
    #expect(members.mayContain(one) && !members.mayContain(two))
    #expect(members.count == 1 && membersCopy.count == 2)
  }
}
