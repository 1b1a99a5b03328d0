import Testing

@testable import UptakeCore

private func parse(_ text: String, maxDepth: Int = 32) throws(JSONParseError) -> JSONValue {
  try JSONParser(maxDepth: maxDepth).parse(Array(text.utf8))
}

private func parseBytes(_ bytes: [UInt8]) -> Result<JSONValue, JSONParseError> {
  Result { () throws(JSONParseError) in try JSONParser().parse(bytes) }
}

private func error(_ text: String, maxDepth: Int = 32) -> JSONParseError? {
  error(bytes: Array(text.utf8), maxDepth: maxDepth)
}

private func error(bytes: [UInt8], maxDepth: Int = 32) -> JSONParseError? {
  do {
    _ = try JSONParser(maxDepth: maxDepth).parse(bytes)
    return nil
  } catch {
    return error
  }
}

private func number(_ text: String) -> JSONValue { .number(JSONNumber(text: text)) }

@Suite struct JSONParserTests {
  @Test func literalsAndScalarsAtTopLevel() throws {
    #expect(try parse("null") == .null)
    #expect(try parse("true") == .bool(true))
    #expect(try parse(" \t\r\nfalse \n") == .bool(false))
    #expect(try parse("\"hi\"") == .string("hi"))
    #expect(try parse("42") == number("42"))
  }

  @Test func objectsKeepMembersInOrderWithDuplicates() throws {
    let value = try parse(#"{"b": 1, "a": [true, null, "x"], "b": {"c": {}}}"#)
    #expect(
      value
        == .object([
          ("b", number("1")),
          ("a", .array([.bool(true), .null, .string("x")])),
          ("b", .object([("c", .object([]))])),
        ]))
  }

  @Test func subscriptTakesTheLastDuplicate() throws {
    let value = try parse(#"{"k": 1, "other": 2, "k": 3}"#)
    #expect(value["k"] == number("3"))
    #expect(value["other"] == number("2"))
    #expect(value["missing"] == nil)
    #expect(JSONValue.array([])["k"] == nil)
    #expect(JSONValue.string("k")["k"] == nil)
  }

  @Test func equalityIsStructuralAndOrdered() {
    let ab = JSONValue.object([("a", .null), ("b", .null)])
    let ba = JSONValue.object([("b", .null), ("a", .null)])
    #expect(ab == ab)
    #expect(ab != ba)
    #expect(JSONValue.array([.null]) != .array([.null, .null]))
    #expect(number("1") != number("1.0"))
    #expect(JSONValue.string("1") != number("1"))
  }

  @Test func emptyContainers() throws {
    #expect(try parse("[]") == .array([]))
    #expect(try parse("{ }") == .object([]))
    #expect(try parse("[ [ ] , { } ]") == .array([.array([]), .object([])]))
  }

  @Test(arguments: [
    ("0", true), ("-0", true), ("7", true), ("-123", true), ("1.5", false), ("-0.25", false),
    ("1e10", false), ("1E+2", false), ("2e-3", false), ("123456789012345678901234567890", true),
  ])
  func numbersKeepTheirLiteral(text: String, isInteger: Bool) throws {
    guard case .number(let parsed) = try parse(text) else {
      Issue.record("not a number")
      return
    }
    #expect(parsed.text == text)
    #expect(parsed.isInteger == isInteger)
  }

  @Test func numberDoubleValue() throws {
    #expect(JSONNumber(text: "-1.25e-3").doubleValue == -0.00125)
    #expect(JSONNumber(text: "782000001589015").doubleValue == 782_000_001_589_015)
    #expect(JSONNumber(text: "1e400").doubleValue == nil)
  }

  @Test(arguments: [
    "01", "-01", "00", "-", "1.", ".5", "+1", "1e", "1e+", "0x10", "NaN", "Infinity", "-Infinity",
    "1.e3", "--1",
  ])
  func malformedNumbersAreRejected(text: String) {
    #expect(error(text) != nil)
  }

  @Test func leadingZeroErrorPointsAtTheZero() {
    #expect(error("[1, 012]") == JSONParseError(message: "leading zero in number", offset: 4))
  }

  @Test func escapes() throws {
    #expect(
      try parse(#""\" \\ \/ \b \f \n \r \t""#) == .string("\" \\ / \u{8} \u{C} \n \r \t"))
    #expect(try parse(#""caf\u00e9 \u20AC \u0000""#) == .string("café € \u{0}"))
    #expect(try parse(#""\ud83d\ude00!""#) == .string("😀!"))
    #expect(try parse(#""\uD83D\uDE00""#) == .string("😀"))
  }

  @Test(arguments: [
    #""\ud83d""#, #""\ud83d x""#, #""\ud83d\u0041""#, #""\ude00""#, #""\ud83d\ud83d""#,
  ])
  func loneSurrogateEscapesAreRejected(text: String) {
    #expect(error(text)?.message == "unpaired surrogate in \\u escape")
    #expect(error(text)?.offset == 1)
  }

  @Test(arguments: [#""\x""#, #""\u12""#, #""\u12G4""#, #""\'""#, #""\U0041""#])
  func invalidEscapesAreRejected(text: String) {
    #expect(error(text) != nil)
  }

  @Test func controlCharactersMustBeEscaped() {
    for byte: UInt8 in [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F] {
      #expect(
        error(bytes: [0x22, 0x61, byte, 0x22])
          == JSONParseError(message: "unescaped control character in string", offset: 2))
    }
    // DEL is not a control character in JSON's grammar.
    #expect(parseBytes([0x22, 0x7F, 0x22]) == .success(.string("\u{7F}")))
  }

  @Test func validUTF8IsKept() throws {
    #expect(try parse("\"é € 😀 \u{10FFFF}\"") == .string("é € 😀 \u{10FFFF}"))
    #expect(try parse("{\"ключ\": \"значение\"}")["ключ"] == .string("значение"))
  }

  @Test(
    arguments: [
      [0x80],  // continuation byte without a lead
      [0xC0, 0xAF],  // overlong "/"
      [0xC1, 0xBF],  // overlong
      [0xE0, 0x80, 0xAF],  // overlong
      [0xF0, 0x80, 0x80, 0xAF],  // overlong
      [0xED, 0xA0, 0x80],  // encoded high surrogate U+D800
      [0xED, 0xBF, 0xBF],  // encoded low surrogate U+DFFF
      [0xF4, 0x90, 0x80, 0x80],  // U+110000
      [0xF5, 0x80, 0x80, 0x80],  // no such lead byte
      [0xFF],
      [0xE2, 0x82],  // truncated by the closing quote
      [0xC3, 0x41],  // lead byte followed by ASCII
    ] as [[UInt8]])
  func invalidUTF8IsRejectedWithItsOffset(bad: [UInt8]) {
    let bytes: [UInt8] = [0x22, 0x61, 0x62] + bad + [0x22]
    #expect(error(bytes: bytes) == JSONParseError(message: "invalid UTF-8", offset: 3))
  }

  @Test func nonASCIIOutsideStringsIsRejected() {
    #expect(error(bytes: [0x5B, 0xC3, 0xA9, 0x5D])?.offset == 1)
    // A byte order mark is not JSON (RFC 8259 forbids sending one).
    #expect(error(bytes: [0xEF, 0xBB, 0xBF] + Array("{}".utf8))?.offset == 0)
  }

  @Test func emptyInputIsAnError() {
    #expect(error("") == JSONParseError(message: "no JSON value", offset: 0))
    #expect(error("  \n ") == JSONParseError(message: "no JSON value", offset: 4))
  }

  @Test(arguments: [
    "[1,]", "[,1]", "[1 2]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{'a':1}", "{\"a\":1", "[1",
    "\"abc", "tru", "nul", "True", "[1] [2]", "{} x", "1 2", "/* c */ 1", "[1]//", "{\"a\"}",
    "{1:2}", "]", "}",
  ])
  func malformedStructureIsRejected(text: String) {
    #expect(error(text) != nil)
  }

  @Test func errorsNameTheOffendingByte() {
    #expect(
      error("[1,]")
        == JSONParseError(message: "unexpected ']' where a value should start", offset: 3))
    #expect(
      error("{\"a\":1} x")
        == JSONParseError(message: "unexpected 'x' after the JSON value", offset: 8))
    #expect(error("[1") == JSONParseError(message: "unexpected end of input", offset: 2))
    #expect(error("\"abc") == JSONParseError(message: "unterminated string", offset: 0))
  }

  @Test func nestingIsLimited() throws {
    let ok = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
    let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
    #expect(try parse(ok) != .null)
    #expect(error(deep) == JSONParseError(message: "nested deeper than 32 levels", offset: 32))
    #expect(try parse(#"{"a":{"b":1}}"#, maxDepth: 2)["a"]?["b"] == number("1"))
    #expect(error(#"{"a":{"b":[]}}"#, maxDepth: 2)?.offset == 10)
    // Far too deep for any stack: still an error, not a crash.
    #expect(error(String(repeating: "[", count: 100_000)) != nil)
  }

  @Test func rawBufferEntryPoint() throws {
    let bytes = Array(#"{"x": [1, "y"]}"#.utf8)
    let value = try bytes.withUnsafeBytes { raw in
      Result { () throws(JSONParseError) in try JSONParser().parse(raw) }
    }.get()
    #expect(value == .object([("x", .array([number("1"), .string("y")]))]))
  }
}
