/// The contract's per-event rules: turns one element of an ingest batch into
/// an `Event`, or says which field broke which rule.
///
/// Unknown fields are ignored, an optional field given as `null` counts as
/// absent, and when a field appears twice the last one counts (as
/// `JSONValue`'s subscript does). When several fields are wrong, the first in
/// the contract's table is reported, whatever the order in the event.
///
/// Lengths count Unicode scalars. "Printable" means no character of the
/// Unicode general category Cc (C0 and C1 controls and DEL).
public struct EventValidator: Sendable {
  /// How far ahead of the server clock an event time may be: device clocks
  /// drift, but not by more than this without being wrong.
  static let maxFutureMs: Int64 = 10 * 60 * 1000
  /// How old an event time may be, so that a client replaying an ancient
  /// queue cannot rewrite old reports.
  public static let maxAgeMs: Int64 = 90 * 86_400_000
  /// How much of an unknown value an error message repeats: enough to
  /// recognise it, without echoing kilobytes back per event.
  static let maxEchoedScalars = 64

  /// A validator for the contract's rules.
  public init() {}

  /// Returns the event, or an error message in the contract's form "field: message", e.g.
  /// `action: unknown value "clicked"`.
  public func validate(_ value: JSONValue, receivedAtMs: Int64) -> Result<
    Event, EventValidationError
  > {
    guard case .object(let members) = value else {
      return .failure(Self.notAnObject)
    }
    var fields = Fields()
    // One pass instead of a subscript lookup per field: the later of two
    // duplicates overwrites the earlier, as the subscript would.
    for (key, value) in members {
      var key = key
      if let field = key.withUTF8(Fields.index(of:)) { fields.set(field, value) }
    }
    do {
      return .success(try event(from: fields, receivedAtMs: receivedAtMs))
    } catch {
      return .failure(error)
    }
  }

  /// The answer for an event that is no JSON object.
  static let notAnObject = EventValidationError("event: not an object")

  /// One event that is a whole JSON document (a line of `uptake import`):
  /// the answers of `JSONParser.parse` then `validate(_:receivedAtMs:)`, read
  /// straight from the bytes as ingest reads each event of a batch
  /// (`validateObject`). Building each line's member list and key strings
  /// was half of an import's parsing thread (docs/performance.md, session 27).
  /// Throws only when the line is no JSON document.
  public func validateDocument(_ bytes: UnsafeRawBufferPointer, receivedAtMs: Int64)
    throws(JSONParseError) -> Result<Event, EventValidationError>
  {
    var reader = JSONReader(bytes: bytes, maxDepth: JSONParser.defaultMaxDepth)
    return try reader.readDocument { (reader) throws(JSONParseError) in
      try validateValue(&reader, depth: 0, receivedAtMs: receivedAtMs)
    }
  }

  /// Validates the event value at the reader's position (whitespace
  /// skipped), which has `depth` containers around it: an object field by
  /// field (`validateObject`); anything else is refused whatever it holds,
  /// checked but not built.
  func validateValue(_ reader: inout JSONReader, depth: Int, receivedAtMs: Int64)
    throws(JSONParseError) -> Result<Event, EventValidationError>
  {
    guard reader.current == UInt8(ascii: "{") else {
      try reader.skipValue(depth: depth)
      return .failure(Self.notAnObject)
    }
    return try validateObject(&reader, depth: depth, receivedAtMs: receivedAtMs)
  }

  /// Validates the event object at the reader's current `{`, which has
  /// `depth` containers around it, reading the contract's fields straight
  /// from the bytes: unlike `validate(_:receivedAtMs:)` after
  /// `JSONReader.parseValue`, it builds no member list and no key strings,
  /// most of the decoding cost of a small event. Same rules, same answers;
  /// throws only when the JSON itself is malformed.
  func validateObject(_ reader: inout JSONReader, depth: Int, receivedAtMs: Int64)
    throws(JSONParseError) -> Result<Event, EventValidationError>
  {
    let level = try reader.enter(depth: depth)
    var fields = Fields()
    if reader.current == UInt8(ascii: "}") {
      reader.position += 1
    } else {
      repeat {
        reader.skipWhitespace()
        // Later duplicates overwrite earlier ones, as in `validate`; the
        // values of other keys are checked, never built.
        if let field = try reader.parseKey(Fields.index(of:)) {
          fields.set(field, try Self.fieldValue(&reader, depth: level))
        } else {
          try reader.skipValue(depth: level)
        }
      } while try !reader.endOfMember()
    }
    do {
      return .success(try event(from: fields, receivedAtMs: receivedAtMs))
    } catch {
      return .failure(error)
    }
  }

  /// A field's value; a container (never a valid field, refused by its
  /// kind alone) is checked and stands as an empty one, not built.
  private static func fieldValue(_ reader: inout JSONReader, depth: Int) throws(JSONParseError)
    -> JSONValue
  {
    switch reader.current {
    case UInt8(ascii: "["):
      try reader.skipValue(depth: depth)
      return .array([])
    case UInt8(ascii: "{"):
      try reader.skipValue(depth: depth)
      return .object([])
    default:
      return try reader.parseValue(depth: depth)
    }
  }

  private struct Fields {
    /// The contract's field names as UTF-8, in the order of `set`'s indexes.
    private static let names: [[UInt8]] = [
      "id", "updateId", "action", "appVersion", "installId", "timestamp", "osVersion",
      "platform", "previousAppVersion", "test",
    ].map { Array($0.utf8) }

    /// The index of the field a key's bytes name, or nil for another key.
    static func index(of key: UnsafeBufferPointer<UInt8>) -> Int? {
      names.firstIndex { $0.count == key.count && $0.elementsEqual(key) }
    }

    mutating func set(_ index: Int, _ value: JSONValue) {
      switch index {
      case 0: id = value
      case 1: updateId = value
      case 2: action = value
      case 3: appVersion = value
      case 4: installId = value
      case 5: timestamp = value
      case 6: osVersion = value
      case 7: platform = value
      case 8: previousAppVersion = value
      default: test = value
      }
    }

    var id: JSONValue?
    var updateId: JSONValue?
    var action: JSONValue?
    var appVersion: JSONValue?
    var installId: JSONValue?
    var timestamp: JSONValue?
    var osVersion: JSONValue?
    var platform: JSONValue?
    var previousAppVersion: JSONValue?
    var test: JSONValue?
  }

  private func event(from fields: Fields, receivedAtMs: Int64) throws(EventValidationError)
    -> Event
  {
    // Checked in the contract table's order, which decides which error an
    // event with several is reported with.
    var id: String?
    if let value = present(fields.id) { id = try identifier(value, field: "id") }
    var event = Event(
      id: id, updateId: try updateIdentifier(fields.updateId),
      action: try actionValue(fields.action), appVersion: "", timestampMs: receivedAtMs)
    guard let appVersion = present(fields.appVersion) else {
      throw EventValidationError("appVersion: required")
    }
    event.appVersion = try version(appVersion, field: "appVersion")
    if let value = present(fields.installId) {
      event.installId = try identifier(value, field: "installId")
    }
    if let value = present(fields.timestamp) {
      event.timestampMs = try timestamp(value, receivedAtMs: receivedAtMs)
    }
    if let value = present(fields.osVersion) {
      event.osVersion = try version(value, field: "osVersion")
    }
    if let value = present(fields.platform) { event.platform = try platformValue(value) }
    if let value = present(fields.previousAppVersion) {
      event.previousAppVersion = try version(value, field: "previousAppVersion")
    }
    if let value = present(fields.test) {
      guard case .bool(let flag) = value else {
        throw EventValidationError("test: must be true or false")
      }
      event.isTest = flag
    }
    return event
  }

  /// nil for a missing field and for an explicit `null`.
  private func present(_ value: JSONValue?) -> JSONValue? {
    if case .null? = value { return nil }
    return value
  }

  private func string(_ value: JSONValue, field: StaticString) throws(EventValidationError)
    -> String
  {
    guard case .string(let text) = value else {
      throw EventValidationError("\(field): must be a string")
    }
    return text
  }

  /// `id` and `installId`: any 1 to 64 characters.
  private func identifier(_ value: JSONValue, field: StaticString) throws(EventValidationError)
    -> String
  {
    let text = try string(value, field: field)
    try checkLength(text, field: field, max: 64)
    return text
  }

  private func updateIdentifier(_ value: JSONValue?) throws(EventValidationError) -> String {
    let text: String
    switch present(value) {
    case nil:
      throw EventValidationError("updateId: required")
    case .string(let string)?:
      text = string
    case .number(let number)? where number.isInteger:
      // The decimal text of the integer; JSON's only other spelling of an
      // integer value is the sign of zero.
      text = number.text == "-0" ? "0" : number.text
    default:
      throw EventValidationError("updateId: must be a string or an integer")
    }
    try checkLength(text, field: "updateId", max: UpdateID.maxLength)
    guard text.utf8.allSatisfy(UpdateID.isAllowed) else {
      throw EventValidationError("updateId: must contain only A-Z a-z 0-9 . _ : -")
    }
    return text
  }

  private func actionValue(_ value: JSONValue?) throws(EventValidationError) -> Action {
    guard let value = present(value) else { throw EventValidationError("action: required") }
    let name = try string(value, field: "action")
    switch name {
    case "impression": return .impression
    case "download": return .download
    case "later": return .later
    case "ignore": return .ignore
    default: throw EventValidationError("action: unknown value \(echo(name))")
    }
  }

  private func platformValue(_ value: JSONValue) throws(EventValidationError) -> Platform {
    let name = try string(value, field: "platform")
    guard let platform = Platform(rawValue: name) else {
      throw EventValidationError("platform: unknown value \(echo(name))")
    }
    return platform
  }

  /// `appVersion`, `osVersion`, `previousAppVersion`: 1 to 32 printable
  /// characters. Only the length and characters are checked, not the form:
  /// a version that does not parse still sorts (after all others).
  private func version(_ value: JSONValue, field: StaticString) throws(EventValidationError)
    -> String
  {
    let text = try string(value, field: field)
    try checkLength(text, field: field, max: 32)
    var previous: UInt8 = 0
    for byte in text.utf8 {
      // C0 controls and DEL are single bytes; C1 controls are C2 80...C2 9F.
      if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && byte >= 0x80 && byte <= 0x9F) {
        throw EventValidationError("\(field): must not contain control characters")
      }
      previous = byte
    }
    return text
  }

  private func timestamp(_ value: JSONValue, receivedAtMs: Int64) throws(EventValidationError)
    -> Int64
  {
    let text = try string(value, field: "timestamp")
    guard let ms = Timestamp.parseRFC3339(text) else {
      throw EventValidationError(
        "timestamp: must be an RFC 3339 date-time with an offset, like 2026-11-29T17:30:15Z")
    }
    // Both bounds are inclusive: exactly 10 minutes ahead or exactly 90 days
    // old is still accepted.
    if ms > receivedAtMs + EventValidator.maxFutureMs {
      throw EventValidationError("timestamp: more than 10 minutes in the future")
    }
    if ms < receivedAtMs - EventValidator.maxAgeMs {
      throw EventValidationError("timestamp: older than 90 days")
    }
    return ms
  }

  private func checkLength(_ text: String, field: StaticString, max: Int)
    throws(EventValidationError)
  {
    let utf8 = text.utf8
    // A string of at most `max` bytes has at most `max` scalars, which spares
    // counting in the usual, ASCII case.
    let fits =
      !utf8.isEmpty
      && (utf8.count <= max || utf8.lazy.filter { $0 & 0xC0 != 0x80 }.count <= max)
    guard fits else { throw EventValidationError("\(field): must be 1 to \(max) characters") }
  }

  /// The value as a JSON string literal, cut short when it is long.
  private func echo(_ value: String) -> String {
    var writer = JSONWriter()
    let scalars = value.unicodeScalars
    if scalars.count <= EventValidator.maxEchoedScalars {
      writer.value(value)
      return writer.text
    }
    writer.value(String(String.UnicodeScalarView(scalars.prefix(EventValidator.maxEchoedScalars))))
    return writer.text + " (cut short)"
  }
}
