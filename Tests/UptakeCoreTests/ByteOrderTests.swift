import Testing
import UptakeCore

/// Report rows sort their texts in byte order, as SQLite's BINARY collation
/// does: `precedesInByteOrder` must agree with the UTF-8 views' order.
@Suite("Byte order of texts")
struct ByteOrderTests {
  @Test("agrees with the UTF-8 views' order: prefixes, empty, multi-byte, NUL")
  func agreesWithUTF8Order() {
    let texts = [
      "", "a", "ab", "abc", "b", "B", "Z", "z", "é", "e\u{301}", "782000001589015",
      "782000001589015x", "78200000158901", "\u{0}", "a\u{0}b", "😀", "日本",
    ]
    for left in texts {
      for right in texts {
        #expect(
          left.precedesInByteOrder(right) == left.utf8.lexicographicallyPrecedes(right.utf8),
          "\(left.debugDescription) vs \(right.debugDescription)")
      }
    }
    #expect("Z".precedesInByteOrder("a"))
    #expect("z".precedesInByteOrder("é"))
    #expect(!"ab".precedesInByteOrder("a"))
  }
}
