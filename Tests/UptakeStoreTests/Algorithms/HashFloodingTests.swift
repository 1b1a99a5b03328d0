import Testing
import UptakeCore

@testable import UptakeStore

/// Keys a client can choose to collide, as an attacker holding an app's
/// public ingest key would (issue 25): install keys and dedup keys are
/// unkeyed hashes of the ids clients send, and update ids and versions are
/// texts clients send, so before the tables mixed in a secret of the
/// process, keys sharing the bits that chose a slot all queued on one.
@Suite("Hash tables hold against keys crafted to collide")
struct HashFloodingTests {
  /// Linear probing at under half full: random keys lie at most a few
  /// dozen slots from home; crafted ones all on one home slot lay
  /// thousands away.
  static let longestFairProbe = 100

  @Test("install keys sharing their low 20 bits spread over the map")
  func installKeys() {
    var map = InstallSet()
    for index in 1...8_192 { map.insert(Int64(index) << 20 | 0x5A5) }
    #expect(map.count == 8_192)
    #expect(map.longestProbe <= Self.longestFairProbe, "\(map.longestProbe) slots")
    #expect(map.contains(Int64(77) << 20 | 0x5A5) && !map.contains(Int64(9_000) << 20 | 0x5A5))
  }

  @Test("texts whose FNV-1a shares its low 10 bits spread over the numbering")
  func texts() {
    var numbering = TextNumbering()
    let crafted = Self.textsCollidingUnderFNV(count: 300, bits: 10)
    for text in crafted { _ = numbering.number(text) }
    #expect(numbering.texts == crafted)
    #expect(numbering.longestProbe <= Self.longestFairProbe, "\(numbering.longestProbe) slots")
    #expect(numbering.number(crafted[123]) == 123)
    // Looked up again, through the cache of recent texts or past it, each
    // keeps its number; longer texts skip the cache.
    #expect(crafted.indices.allSatisfy { numbering.number(crafted[$0]) == Int32($0) })
    let long = crafted.map { $0 + String(repeating: "-", count: 20) }
    let numbers = long.map { numbering.number($0) }
    #expect(numbers == long.indices.map { Int32(crafted.count + $0) })
    #expect(long.indices.allSatisfy { numbering.number(long[$0]) == numbers[$0] })
  }

  @Test("dedup keys sharing the bits that chose their filter block stay told apart")
  func filterBlocks() {
    var filter = StoredKeyFilter()
    for index in 0..<50_000 { filter.insert(Int64(index) << 32 | 0x1_2345) }
    let absent = (50_000..<100_000).map { Int64($0) << 32 | 0x1_2345 }
    let falsePositives = absent.filter { filter.mayContain($0) }.count
    #expect(falsePositives < 500, "\(falsePositives) of 50,000 absent keys passed")
  }

  @Test("where a key lands depends on the process's secret")
  func secretDecides() {
    let (one, other) = (
      SlotHash(first: 0x243F_6A88_85A3_08D3, second: 0x9E37_79B9_7F4A_7C15),
      SlotHash(first: 0x1319_8A2E_0370_7344, second: 0xC2B2_AE3D_27D4_EB4F)
    )
    let keys = (1...64).map { Int64($0) << 40 }
    let slots = keys.map { one.slot($0, shift: 54) }
    #expect(slots != keys.map { other.slot($0, shift: 54) })
    #expect(Set(slots).count > 50)
    #expect(keys.map { one.mix(UInt64($0)) } != keys.map { other.mix(UInt64($0)) })
  }

  /// Texts whose FNV-1a, folded to 32 bits as TextNumbering hashed them
  /// before the secret, agree in their low `bits` bits.
  static func textsCollidingUnderFNV(count: Int, bits: Int) -> [String] {
    var found: [String] = []
    var candidate = 0
    while found.count < count {
      let text = "u\(candidate)"
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
      if (hash ^ (hash >> 32)) & ((1 << bits) - 1) == 0 { found.append(text) }
      candidate += 1
    }
    return found
  }
}
