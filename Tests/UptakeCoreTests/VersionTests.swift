import Testing

@testable import UptakeCore

private enum Order: String, CustomStringConvertible {
  case less = "<"
  case equal = "=="
  case greater = ">"
  var description: String { rawValue }
}

private func order(_ a: String, _ b: String) -> Order? {
  guard let x = Version(a), let y = Version(b) else { return nil }
  if x < y { return .less }
  if y < x { return .greater }
  return .equal
}

@Suite struct VersionTests {
  @Test(arguments: [
    // The contract's examples.
    ("2.10.0", ">", "2.9.1"),
    ("10.0", ">", "9.0"),
    ("2022.08.25", ">", "2022.8.3"),
    // Numeric groups, missing groups are zero.
    ("08", "==", "8"),
    ("2.0", "==", "2.0.0"),
    ("2", "==", "2.0.0.0"),
    ("2.0.1", ">", "2"),
    ("1.2.3", "<", "1.2.3.1"),
    ("0.9", "<", "1"),
    ("1.0", "==", "001.000"),
    ("99999999999999999999999.1", ">", "99999999999999999999998.9"),
    ("100000000000000000000", ">", "99999999999999999999"),
    ("1.000000000000000000000000001", "==", "1.1"),
    // Build suffixes are ignored.
    ("2.1 (45)", "==", "2.1"),
    ("2.1 (45)", "==", "2.1 (46)"),
    ("2.1+45", "==", "2.1.0"),
    ("2.1-beta+7", "==", "2.1-beta"),
    ("2.1 (45)", "<", "2.1.1"),
    ("2.1.0-beta.1 (12)", "<", "2.1.0"),
    // Pre-releases come before the release, compared as in SemVer.
    ("2.1.0-beta.1", "<", "2.1.0"),
    ("2.1.0-beta.1", ">", "2.0.9"),
    ("1.0.0-alpha", "<", "1.0.0-alpha.1"),
    ("1.0.0-alpha.1", "<", "1.0.0-alpha.beta"),
    ("1.0.0-alpha.beta", "<", "1.0.0-beta"),
    ("1.0.0-beta", "<", "1.0.0-beta.2"),
    ("1.0.0-beta.2", "<", "1.0.0-beta.11"),
    ("1.0.0-beta.11", "<", "1.0.0-rc.1"),
    ("1.0.0-rc.1", "<", "1.0.0"),
    ("1.0.0-1", "<", "1.0.0-alpha"),
    ("1.0.0-01", "==", "1.0.0-1"),
    ("1.0-rc.1", "==", "1.0.0-rc.1"),
    ("1.0.0-RC", "<", "1.0.0-rc"),
    // Other suffixes are pre-releases too.
    ("2.1b3", "<", "2.1"),
    ("2.1b3", "==", "2.1-b3"),
    ("2.1b3", "<", "2.1b4"),
    ("1.0 beta", "==", "1.0-beta"),
    ("2.1.", "==", "2.1"),
  ])
  func orderTable(a: String, expected: String, b: String) {
    #expect(order(a, b)?.rawValue == expected)
    // The same pair read the other way round.
    let mirrored = ["<": ">", ">": "<", "==": "=="][expected]
    #expect(order(b, a)?.rawValue == mirrored)
  }

  @Test(arguments: ["", "abc", "v1.0", ".1", "-1", " 1.0", "beta"])
  func notAVersion(text: String) {
    #expect(Version(text) == nil)
  }

  @Test func keepsTheTextAsWritten() {
    #expect(Version("2022.08.25 (12)")?.text == "2022.08.25 (12)")
    #expect(Version("08")?.description == "08")
  }

  @Test func equalVersionsHashAlike() {
    let set = Set(["2.0", "2.0.0", "02.0", "2 (7)", "2.0+x"].compactMap(Version.init))
    #expect(set.count == 1)
    let distinct = Set(["2.0", "2.0.1", "2.0-beta", "2.0-beta.1"].compactMap(Version.init))
    #expect(distinct.count == 4)
  }

  @Test func reportKeysSortInVersionOrderThenText() {
    let keys = [
      "10.0", "2.0.0", "abc", "2.10.0", "", "2.9.1", "1.0-beta", "Beta", "2.0", "1.0", "2.1 (45)",
      "2.1", "2.1.0-beta.1",
    ]
    #expect(
      keys.sorted(by: VersionOrder.areInIncreasingOrder) == [
        "1.0-beta", "1.0", "2.0", "2.0.0", "2.1.0-beta.1", "2.1", "2.1 (45)", "2.9.1", "2.10.0",
        "10.0", "", "Beta", "abc",
      ])
  }

  @Test func reportKeyOrderIsAStrictTotalOrder() {
    let keys = ["1", "1.0", "01", "1-a", "1-b", "1+x", "x", "", "é", "2", "1.0.0-a"]
    for a in keys {
      #expect(!VersionOrder.areInIncreasingOrder(a, a))
      for b in keys where a != b {
        // Exactly one direction holds for distinct strings.
        #expect(VersionOrder.areInIncreasingOrder(a, b) != VersionOrder.areInIncreasingOrder(b, a))
        for c in keys
        where VersionOrder.areInIncreasingOrder(a, b) && VersionOrder.areInIncreasingOrder(b, c) {
          #expect(VersionOrder.areInIncreasingOrder(a, c))
        }
      }
    }
  }
}
