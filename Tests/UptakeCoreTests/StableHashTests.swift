import Testing
import UptakeCore

@Suite struct StableHashTests {
  @Test func fnv1a64KnownVectors() {
    #expect(StableHash.fnv1a64([]) == 0xcbf2_9ce4_8422_2325)
    #expect(StableHash.fnv1a64("a".utf8) == 0xaf63_dc4c_8601_ec8c)
    #expect(StableHash.fnv1a64("foobar".utf8) == 0x8594_4171_f739_67e8)
  }

  @Test func seedContinuesAHash() {
    let foo = StableHash.fnv1a64("foo".utf8)
    #expect(StableHash.fnv1a64("bar".utf8, seed: foo) == StableHash.fnv1a64("foobar".utf8))
  }

  /// These values are stored on disk: if this test fails, the function changed
  /// and existing databases would stop deduplicating.
  @Test(
    arguments: [
      (1, "6F9619FF-8B86-D011-B42D-00C04FC964FF", 6_995_177_103_633_162_930),
      (2, "6F9619FF-8B86-D011-B42D-00C04FC964FF", 1_497_561_829_633_440_145),
      (0, "", -9_133_579_918_834_762_733),
      (-1, "é", -7_121_459_538_509_373_069),
    ] as [(Int64, String, Int64)])
  func dedupKeyNeverChanges(appNo: Int64, clientId: String, key: Int64) {
    #expect(StableHash.dedupKey(appNo: appNo, clientId: clientId) == key)
  }
}
