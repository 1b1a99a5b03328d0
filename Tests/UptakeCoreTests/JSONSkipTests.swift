import Testing

@testable import UptakeCore

/// `JSONReader.skipValue` checks a value exactly as `parseValue` does,
/// without building it: the same error at the same byte, or the same end.
@Suite struct JSONSkipTests {
  /// Where each way of reading stops: the position after the value, or its
  /// error.
  static func outcome(_ text: String, skipping: Bool, maxDepth: Int = 8) -> String {
    Array(text.utf8).withUnsafeBytes { bytes in
      var reader = JSONReader(bytes: bytes, maxDepth: maxDepth)
      do throws(JSONParseError) {
        if skipping { try reader.skipValue(depth: 0) } else { _ = try reader.parseValue(depth: 0) }
        return "end \(reader.position)"
      } catch {
        return "\(error.message) at \(error.offset)"
      }
    }
  }

  @Test(arguments: [
    "null", "true", "false", "0", "-12.5e+3", "\"text\"", #""a\"b\\c\u00e9\ud83d\ude00""#,
    "[]", "{}", "[1, [2, {\"a\": [3, \"x\"]}], null] trailing", #"{"k": {"l": [true, false]}}"#,
    "[0,0,0,0,0,0,0,0,0,0]", String(repeating: "[", count: 9) + String(repeating: "]", count: 9),
    "[1 2]", "[1,]", "{\"a\" 1}", "{\"a\": 1,}", "{a: 1}", "01", "-", "1.", "1e", "tru", "nul",
    #""\x""#, #""\u12G4""#, #""\udc00""#, "\"unterminated", "[\"\u{1}\"]", "[", "{\"a\":",
    "+1", "]", "\"\u{7f}ok\"",
  ])
  func skipsAsItParses(text: String) {
    #expect(Self.outcome(text, skipping: true) == Self.outcome(text, skipping: false))
  }

  @Test func invalidUTF8IsCaughtWhenSkipping() {
    let bytes: [UInt8] = Array("[\"a".utf8) + [0xC3, 0x28] + Array("\"]".utf8)
    let (parsed, skipped) = bytes.withUnsafeBytes { raw in
      var parser = JSONReader(bytes: raw, maxDepth: 4)
      var skipper = JSONReader(bytes: raw, maxDepth: 4)
      let parsed = Result { () throws(JSONParseError) in try parser.parseValue(depth: 0) }
      let skipped = Result { () throws(JSONParseError) in try skipper.skipValue(depth: 0) }
      return (parsed.map { _ in () }, skipped)
    }
    #expect(throws: JSONParseError.self) { try parsed.get() }
    #expect(throws: JSONParseError.self) { try skipped.get() }
  }
}
