/// The byte-level engine behind `JSONParser`, also driven directly by
/// `EventBatchDecoder`, which walks the top level itself to learn where each
/// event starts and ends. A reader is used once: after an error its state is
/// meaningless.
struct JSONReader {
  let bytes: UnsafeBufferPointer<UInt8>
  let maxDepth: Int
  var position = 0

  // Elements of the containers being parsed are gathered on these shared
  // stacks and copied out once per container at its exact size, so that a
  // container costs one allocation instead of one per doubling.
  private var valueStack: [JSONValue] = []
  private var memberStack: [(String, JSONValue)] = []
  // Reused across strings that contain escapes.
  private var scratch: [UInt8] = []

  init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
    self.bytes = bytes.assumingMemoryBound(to: UInt8.self)
    self.maxDepth = maxDepth
  }

  var isAtEnd: Bool { position >= bytes.count }

  /// The byte at the current position, or 0 at the end (0 is never valid
  /// where a caller peeks, so it needs no separate end check).
  var current: UInt8 { position < bytes.count ? bytes[position] : 0 }

  mutating func skipWhitespace() {
    while position < bytes.count {
      switch bytes[position] {
      case 0x20, 0x0A, 0x0D, 0x09: position += 1
      default: return
      }
    }
  }

  /// Parses one complete document: a value with optional surrounding
  /// whitespace and nothing else.
  mutating func parseDocument() throws(JSONParseError) -> JSONValue {
    try readDocument { (reader) throws(JSONParseError) in try reader.parseValue(depth: 0) }
  }

  /// Reads one complete document with `readValue`, which reads the value at
  /// the current position (whitespace skipped, at depth 0): the
  /// surrounding whitespace and nothing else are allowed around it.
  mutating func readDocument<Value>(
    _ readValue: (inout JSONReader) throws(JSONParseError) -> Value
  ) throws(JSONParseError) -> Value {
    skipWhitespace()
    if isAtEnd { throw JSONParseError(message: "no JSON value", offset: position) }
    let value = try readValue(&self)
    skipWhitespace()
    if !isAtEnd { throw unexpected("after the JSON value") }
    return value
  }

  /// Parses the value that starts at the current position (whitespace
  /// already skipped). `depth` is the number of containers around it.
  mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
    switch current {
    case UInt8(ascii: "{"): return try parseObject(depth: depth)
    case UInt8(ascii: "["): return try parseArray(depth: depth)
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return .number(try parseNumber())
    default:
      throw unexpected("where a value should start")
    }
  }

  /// Checks the value that starts at the current position as `parseValue`
  /// does, with the same errors, and moves past it without building it:
  /// for values no one reads (unknown keys), which a client could make a
  /// few megabytes of tiny elements, each a JSONValue of tens of bytes:
  /// 8 KB of gzip once built 192 MB.
  mutating func skipValue(depth: Int) throws(JSONParseError) {
    switch current {
    case UInt8(ascii: "{"):
      let level = try enter(depth: depth)
      if current == UInt8(ascii: "}") {
        position += 1
        return
      }
      repeat {
        skipWhitespace()
        guard current == UInt8(ascii: "\"") else { throw unexpected("where a key should be") }
        try skipString()
        skipWhitespace()
        guard current == UInt8(ascii: ":") else { throw unexpected("where ':' should be") }
        position += 1
        skipWhitespace()
        try skipValue(depth: level)
      } while try !endOfMember()
    case UInt8(ascii: "["):
      let level = try enter(depth: depth)
      if current == UInt8(ascii: "]") {
        position += 1
        return
      }
      while true {
        skipWhitespace()
        try skipValue(depth: level)
        skipWhitespace()
        let byte = current
        position += 1
        if byte == UInt8(ascii: "]") { return }
        if byte != UInt8(ascii: ",") {
          position -= 1
          throw unexpected("where ',' or ']' should be")
        }
      }
    case UInt8(ascii: "\""): try skipString()
    case UInt8(ascii: "t"): try expectLiteral("true")
    case UInt8(ascii: "f"): try expectLiteral("false")
    case UInt8(ascii: "n"): try expectLiteral("null")
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try scanNumber()
    default:
      throw unexpected("where a value should start")
    }
  }

  /// Checks the string at the current `"`, its escapes too, and moves past it.
  private mutating func skipString() throws(JSONParseError) {
    let span = try scanString()
    // Decoded into the reused scratch bytes, only to check the escapes.
    if span.hasEscape { _ = try decodeEscapes(from: span.start, to: span.end) }
  }

  /// Parses the string that starts at the current `"`.
  mutating func parseString() throws(JSONParseError) -> String {
    let span = try scanString()
    if !span.hasEscape {
      return String(
        decoding: UnsafeBufferPointer(rebasing: bytes[span.start..<span.end]), as: UTF8.self)
    }
    return try decodeEscapes(from: span.start, to: span.end)
  }

  /// The bytes between the quotes of the string that starts at the current
  /// `"`, checked (terminated, no raw control characters, valid UTF-8); the
  /// position moves past the closing quote. Escapes are left for the caller.
  private mutating func scanString() throws(JSONParseError) -> (
    start: Int, end: Int, hasEscape: Bool
  ) {
    let start = position + 1
    var i = start
    var hasEscape = false
    var hasNonASCII = false
    while true {
      guard i < bytes.count else {
        throw JSONParseError(message: "unterminated string", offset: position)
      }
      let byte = bytes[i]
      if byte == UInt8(ascii: "\"") { break }
      if byte == UInt8(ascii: "\\") {
        // Skipping the escaped byte keeps an escaped quote from ending the
        // string; the escape itself is checked when it is decoded.
        hasEscape = true
        i += 2
        continue
      }
      if byte < 0x20 {
        throw JSONParseError(message: "unescaped control character in string", offset: i)
      }
      if byte >= 0x80 { hasNonASCII = true }
      i += 1
    }
    let end = i
    if hasNonASCII,
      let bad = UTF8Validation.firstInvalidOffset(in: bytes, from: start, to: end)
    {
      throw JSONParseError(message: "invalid UTF-8", offset: bad)
    }
    position = end + 1
    return (start, end, hasEscape)
  }

  private mutating func decodeEscapes(from start: Int, to end: Int) throws(JSONParseError)
    -> String
  {
    scratch.removeAll(keepingCapacity: true)
    var i = start
    while i < end {
      let byte = bytes[i]
      if byte != UInt8(ascii: "\\") {
        scratch.append(byte)
        i += 1
        continue
      }
      // The scan in parseString guarantees a byte after every backslash.
      switch bytes[i + 1] {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(bytes[i + 1])
      case UInt8(ascii: "b"): scratch.append(0x08)
      case UInt8(ascii: "f"): scratch.append(0x0C)
      case UInt8(ascii: "n"): scratch.append(0x0A)
      case UInt8(ascii: "r"): scratch.append(0x0D)
      case UInt8(ascii: "t"): scratch.append(0x09)
      case UInt8(ascii: "u"):
        let scalar = try decodeUnicodeEscape(at: i, end: end)
        appendUTF8(scalar.value)
        i += scalar.value > 0xFFFF ? 12 : 6
        continue
      default:
        throw JSONParseError(message: "invalid escape", offset: i)
      }
      i += 2
    }
    return String(decoding: scratch, as: UTF8.self)
  }

  /// Decodes `\uXXXX` at `i`, or a surrogate pair `\uD83D\uDE00` of two.
  private func decodeUnicodeEscape(at i: Int, end: Int) throws(JSONParseError) -> Unicode.Scalar {
    guard let unit = hex4(at: i + 2, end: end) else {
      throw JSONParseError(message: "invalid \\u escape", offset: i)
    }
    switch unit {
    case 0xD800...0xDBFF:
      guard i + 7 < end, bytes[i + 6] == UInt8(ascii: "\\"), bytes[i + 7] == UInt8(ascii: "u"),
        let low = hex4(at: i + 8, end: end), (0xDC00...0xDFFF).contains(low)
      else {
        throw JSONParseError(message: "unpaired surrogate in \\u escape", offset: i)
      }
      return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
    case 0xDC00...0xDFFF:
      throw JSONParseError(message: "unpaired surrogate in \\u escape", offset: i)
    default:
      return Unicode.Scalar(unit)!
    }
  }

  private func hex4(at i: Int, end: Int) -> UInt32? {
    guard i + 4 <= end else { return nil }
    var value: UInt32 = 0
    for k in i..<i + 4 {
      let byte = bytes[k]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: return nil
      }
      value = value << 4 | UInt32(digit)
    }
    return value
  }

  private mutating func appendUTF8(_ v: UInt32) {
    switch v {
    case 0..<0x80:
      scratch.append(UInt8(v))
    case 0x80..<0x800:
      scratch.append(UInt8(0xC0 | v >> 6))
      scratch.append(UInt8(0x80 | v & 0x3F))
    case 0x800..<0x10000:
      scratch.append(UInt8(0xE0 | v >> 12))
      scratch.append(UInt8(0x80 | v >> 6 & 0x3F))
      scratch.append(UInt8(0x80 | v & 0x3F))
    default:
      scratch.append(UInt8(0xF0 | v >> 18))
      scratch.append(UInt8(0x80 | v >> 12 & 0x3F))
      scratch.append(UInt8(0x80 | v >> 6 & 0x3F))
      scratch.append(UInt8(0x80 | v & 0x3F))
    }
  }

  private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
    let span = try scanNumber()
    return JSONNumber(
      text: String(decoding: UnsafeBufferPointer(rebasing: bytes[span]), as: UTF8.self))
  }

  /// The bytes of the number at the current position, checked against
  /// JSON's grammar; the position moves past it.
  private mutating func scanNumber() throws(JSONParseError) -> Range<Int> {
    let start = position
    var i = position
    if bytes[i] == UInt8(ascii: "-") { i += 1 }
    guard i < bytes.count, isDigit(bytes[i]) else {
      throw JSONParseError(message: "expected a digit", offset: i)
    }
    if bytes[i] == UInt8(ascii: "0") {
      i += 1
      if i < bytes.count, isDigit(bytes[i]) {
        throw JSONParseError(message: "leading zero in number", offset: i - 1)
      }
    } else {
      i = skipDigits(from: i)
    }
    if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
      i += 1
      guard i < bytes.count, isDigit(bytes[i]) else {
        throw JSONParseError(message: "expected a digit after the decimal point", offset: i)
      }
      i = skipDigits(from: i)
    }
    if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
      i += 1
      if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
        i += 1
      }
      guard i < bytes.count, isDigit(bytes[i]) else {
        throw JSONParseError(message: "expected a digit in the exponent", offset: i)
      }
      i = skipDigits(from: i)
    }
    position = i
    return start..<i
  }

  private func isDigit(_ byte: UInt8) -> Bool {
    byte &- UInt8(ascii: "0") < 10
  }

  private func skipDigits(from start: Int) -> Int {
    var i = start
    while i < bytes.count, isDigit(bytes[i]) { i += 1 }
    return i
  }

  private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
    let count = literal.utf8CodeUnitCount
    let matches =
      bytes.count - position >= count
      && literal.withUTF8Buffer { expected in
        expected.elementsEqual(bytes[position..<position + count])
      }
    guard matches else { throw JSONParseError(message: "invalid literal", offset: position) }
    position += count
  }

  /// Steps into the array or object at the current position, which has
  /// `depth` containers around it, and returns its own nesting level.
  mutating func enter(depth: Int) throws(JSONParseError) -> Int {
    let level = depth + 1
    if level > maxDepth {
      throw JSONParseError(message: "nested deeper than \(maxDepth) levels", offset: position)
    }
    position += 1
    skipWhitespace()
    return level
  }

  private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
    let level = try enter(depth: depth)
    if current == UInt8(ascii: "]") {
      position += 1
      return .array([])
    }
    let base = valueStack.count
    while true {
      skipWhitespace()
      valueStack.append(try parseValue(depth: level))
      skipWhitespace()
      let byte = current
      position += 1
      if byte == UInt8(ascii: "]") { break }
      if byte != UInt8(ascii: ",") {
        position -= 1
        throw unexpected("where ',' or ']' should be")
      }
    }
    let elements = Array(valueStack[base...])
    valueStack.removeSubrange(base...)
    return .array(elements)
  }

  private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
    let level = try enter(depth: depth)
    if current == UInt8(ascii: "}") {
      position += 1
      return .object([])
    }
    let base = memberStack.count
    repeat {
      skipWhitespace()
      let key = try parseKey()
      skipWhitespace()
      memberStack.append((key, try parseValue(depth: level)))
    } while try !endOfMember()
    let members = Array(memberStack[base...])
    memberStack.removeSubrange(base...)
    return .object(members)
  }

  /// Parses `"key"` and the `:` after it, leaving the position at the value.
  mutating func parseKey() throws(JSONParseError) -> String {
    guard current == UInt8(ascii: "\"") else { throw unexpected("where a key should be") }
    let key = try parseString()
    skipWhitespace()
    guard current == UInt8(ascii: ":") else { throw unexpected("where ':' should be") }
    position += 1
    skipWhitespace()
    return key
  }

  /// Parses `"key"` and the `:` after it, as `parseKey()` does, but hands
  /// the key's bytes to `match` and answers what it returns. A key written
  /// without escapes is passed straight from the input, so the common case
  /// builds no String.
  mutating func parseKey<Match>(_ match: (UnsafeBufferPointer<UInt8>) -> Match)
    throws(JSONParseError) -> Match
  {
    guard current == UInt8(ascii: "\"") else { throw unexpected("where a key should be") }
    let span = try scanString()
    let matched: Match
    if span.hasEscape {
      var key = try decodeEscapes(from: span.start, to: span.end)
      matched = key.withUTF8(match)
    } else {
      matched = match(UnsafeBufferPointer(rebasing: bytes[span.start..<span.end]))
    }
    skipWhitespace()
    guard current == UInt8(ascii: ":") else { throw unexpected("where ':' should be") }
    position += 1
    skipWhitespace()
    return matched
  }

  /// After an object's member: consumes the `,` before the next one (false)
  /// or the `}` that closes the object (true).
  mutating func endOfMember() throws(JSONParseError) -> Bool {
    skipWhitespace()
    let byte = current
    guard byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") else {
      throw unexpected("where ',' or '}' should be")
    }
    position += 1
    return byte == UInt8(ascii: "}")
  }

  /// An error naming the byte at the current position.
  func unexpected(_ context: String) -> JSONParseError {
    guard position < bytes.count else {
      return JSONParseError(message: "unexpected end of input", offset: position)
    }
    let byte = bytes[position]
    let shown =
      (0x21...0x7E).contains(byte)
      ? "'\(Character(Unicode.Scalar(byte)))'"
      : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    return JSONParseError(message: "unexpected \(shown) \(context)", offset: position)
  }
}
