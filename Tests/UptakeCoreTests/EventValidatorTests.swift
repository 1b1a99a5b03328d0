import Testing

@testable import UptakeCore

/// 2025-11-29T17:30:15Z, the server clock in these tests.
private let now: Int64 = 1_764_437_415_000
private let minute: Int64 = 60_000
private let day: Int64 = 86_400_000

private let required = #""updateId":"u1","action":"impression","appVersion":"2.0""#

private func validate(_ json: String, receivedAtMs: Int64 = now) -> Result<
  Event, EventValidationError
> {
  let value: JSONValue
  do {
    value = try JSONParser().parse(Array(json.utf8))
  } catch {
    fatalError("test JSON does not parse: \(json)")
  }
  return EventValidator().validate(value, receivedAtMs: receivedAtMs)
}

/// The event made of the required fields plus `extra` members.
private func withRequired(_ extra: String) -> String {
  extra.isEmpty ? "{\(required)}" : "{\(required),\(extra)}"
}

private func message(_ json: String, receivedAtMs: Int64 = now) -> String? {
  guard case .failure(let error) = validate(json, receivedAtMs: receivedAtMs) else { return nil }
  return error.message
}

private func event(_ json: String, receivedAtMs: Int64 = now) -> Event? {
  try? validate(json, receivedAtMs: receivedAtMs).get()
}

private func quoted(_ text: String) -> String {
  var writer = JSONWriter()
  writer.value(text)
  return writer.text
}

@Suite struct EventValidatorTests {
  @Test func minimalEventGetsDefaults() {
    #expect(
      event(withRequired(""))
        == Event(updateId: "u1", action: .impression, appVersion: "2.0", timestampMs: now))
  }

  @Test func fullEvent() {
    let json = """
      {"id":"e-1","updateId":"782000001589015","action":"download","appVersion":"2.1.0",
       "installId":"i-1","timestamp":"2025-11-29T17:00:00.250Z","osVersion":"17.4.1",
       "platform":"ipados","previousAppVersion":"2.0.9","test":true}
      """
    #expect(
      event(json)
        == Event(
          id: "e-1", updateId: "782000001589015", action: .download, appVersion: "2.1.0",
          installId: "i-1", timestampMs: now - 30 * minute - 15_000 + 250, osVersion: "17.4.1",
          platform: .ipados, previousAppVersion: "2.0.9", isTest: true))
  }

  @Test(arguments: ["[]", "[1]", "\"event\"", "42", "null", "true"])
  func eventMustBeAnObject(json: String) {
    #expect(message(json) == "event: not an object")
  }

  @Test func unknownFieldsAreIgnored() {
    let json = withRequired(#""extra":{"deep":[1,2,{"x":null}]},"Action":"nope","ID":5"#)
    #expect(event(json) == event(withRequired("")))
  }

  @Test func theLastDuplicateCounts() {
    let json = #"{"updateId":"u1","action":"nope","appVersion":"2.0","action":"later"}"#
    #expect(event(json)?.action == .later)
  }

  @Test(arguments: [
    "id", "installId", "timestamp", "osVersion", "platform", "previousAppVersion", "test",
  ])
  func optionalFieldGivenAsNullCountsAsAbsent(field: String) {
    #expect(event(withRequired("\"\(field)\":null")) == event(withRequired("")))
  }

  @Test(arguments: ["updateId", "action", "appVersion"])
  func requiredFieldsMissingOrNull(field: String) {
    let others = [
      ("updateId", #""u1""#), ("action", #""later""#), ("appVersion", #""2.0""#),
    ].filter { $0.0 != field }.map { "\"\($0.0)\":\($0.1)" }
    #expect(message("{\(others.joined(separator: ","))}") == "\(field): required")
    #expect(
      message("{\(others.joined(separator: ",")),\"\(field)\":null}") == "\(field): required")
  }

  @Test(arguments: ["id", "installId"])
  func identifiersAreOneToSixtyFourCharacters(field: String) {
    let longest = String(repeating: "x", count: 64)
    let wide = String(repeating: "é", count: 64)  // 128 bytes, 64 characters
    #expect(event(withRequired("\"\(field)\":\"a\"")) != nil)
    #expect(event(withRequired("\"\(field)\":\"\(longest)\"")) != nil)
    #expect(event(withRequired("\"\(field)\":\"\(wide)\"")) != nil)
    #expect(event(withRequired("\"\(field)\":\"a b\\n\"")) != nil)
    let tooLong = "\(field): must be 1 to 64 characters"
    #expect(message(withRequired("\"\(field)\":\"\"")) == tooLong)
    #expect(message(withRequired("\"\(field)\":\"\(longest)x\"")) == tooLong)
    #expect(message(withRequired("\"\(field)\":\"\(wide)é\"")) == tooLong)
    #expect(message(withRequired("\"\(field)\":12")) == "\(field): must be a string")
    #expect(message(withRequired("\"\(field)\":[\"a\"]")) == "\(field): must be a string")
  }

  @Test func identifierValuesAreKept() {
    let json = withRequired(#""id":"550e8400-e29b-41d4-a716-446655440000","installId":"ïd""#)
    #expect(event(json)?.id == "550e8400-e29b-41d4-a716-446655440000")
    #expect(event(json)?.installId == "ïd")
  }

  @Test(arguments: [
    ("\"u\"", "u"),
    ("\"\(String(repeating: "9", count: 64))\"", String(repeating: "9", count: 64)),
    ("\"AZaz09._:-\"", "AZaz09._:-"),
    ("782000001589015", "782000001589015"),
    ("\"782000001589015\"", "782000001589015"),
    ("0", "0"),
    ("-0", "0"),
    ("-12", "-12"),
    ("123456789012345678901234567890", "123456789012345678901234567890"),
  ])
  func validUpdateIds(json: String, stored: String) {
    let event = event(#"{"updateId":\#(json),"action":"later","appVersion":"1"}"#)
    #expect(event?.updateId == stored)
  }

  @Test(arguments: [
    ("\"\"", "updateId: must be 1 to 64 characters"),
    ("\"\(String(repeating: "a", count: 65))\"", "updateId: must be 1 to 64 characters"),
    (String(repeating: "1", count: 65), "updateId: must be 1 to 64 characters"),
    ("\"a b\"", "updateId: must contain only A-Z a-z 0-9 . _ : -"),
    ("\"a/b\"", "updateId: must contain only A-Z a-z 0-9 . _ : -"),
    ("\"é\"", "updateId: must contain only A-Z a-z 0-9 . _ : -"),
    ("1.5", "updateId: must be a string or an integer"),
    ("1.0", "updateId: must be a string or an integer"),
    ("1e3", "updateId: must be a string or an integer"),
    ("true", "updateId: must be a string or an integer"),
    ("[\"u1\"]", "updateId: must be a string or an integer"),
    ("{}", "updateId: must be a string or an integer"),
  ])
  func invalidUpdateIds(json: String, expected: String) {
    #expect(message(#"{"updateId":\#(json),"action":"later","appVersion":"1"}"#) == expected)
  }

  @Test(arguments: Action.allCases)
  func everyActionIsAccepted(action: Action) {
    let json = #"{"updateId":"u1","action":"\#(action.name)","appVersion":"2.0"}"#
    #expect(event(json)?.action == action)
  }

  @Test(arguments: [
    (#""clicked""#, #"action: unknown value "clicked""#),
    (#""Impression""#, #"action: unknown value "Impression""#),
    (#""""#, #"action: unknown value """#),
    (#""say \"hi\"\n""#, #"action: unknown value "say \"hi\"\n""#),
    ("5", "action: must be a string"),
    ("false", "action: must be a string"),
    ("{\"name\":\"later\"}", "action: must be a string"),
  ])
  func invalidActions(json: String, expected: String) {
    #expect(message(#"{"updateId":"u1","action":\#(json),"appVersion":"2.0"}"#) == expected)
  }

  @Test func longUnknownValuesAreCutShortInTheMessage() {
    let long = String(repeating: "é", count: 100)
    let expected =
      "action: unknown value \(quoted(String(repeating: "é", count: 64))) (cut short)"
    #expect(message(#"{"updateId":"u1","action":"\#(long)","appVersion":"2.0"}"#) == expected)
  }

  @Test(arguments: ["appVersion", "osVersion", "previousAppVersion"])
  func versionFieldsAreOneToThirtyTwoPrintableCharacters(field: String) {
    func json(_ value: String) -> String {
      let base = ["updateId": "\"u1\"", "action": "\"later\"", "appVersion": "\"2.0\""]
      let members = base.merging([field: value]) { $1 }.map { "\"\($0.key)\":\($0.value)" }
      return "{\(members.joined(separator: ","))}"
    }
    let longest = String(repeating: "1", count: 32)
    let wide = String(repeating: "β", count: 32)
    for good in ["\"1\"", "\"\(longest)\"", "\"\(wide)\"", "\"2.1.0 (45)\"", "\"beta ☃\""] {
      #expect(event(json(good)) != nil, "\(field) \(good)")
    }
    #expect(message(json("\"\"")) == "\(field): must be 1 to 32 characters")
    #expect(message(json("\"\(longest)1\"")) == "\(field): must be 1 to 32 characters")
    #expect(message(json("\"\(wide)β\"")) == "\(field): must be 1 to 32 characters")
    for control in [
      #""2.0\n""#, #""\u00002""#, #""2\t0""#, #""2\u007f""#, #""2\u0085""#, #""\u009f""#,
    ] {
      #expect(
        message(json(control)) == "\(field): must not contain control characters", "\(control)")
    }
    #expect(message(json("2.0")) == "\(field): must be a string")
    #expect(message(json("[]")) == "\(field): must be a string")
  }

  @Test(arguments: Platform.allCases)
  func everyPlatformIsAccepted(platform: Platform) {
    #expect(event(withRequired("\"platform\":\"\(platform.rawValue)\""))?.platform == platform)
  }

  @Test func invalidPlatforms() {
    #expect(message(withRequired(#""platform":"xbox""#)) == #"platform: unknown value "xbox""#)
    #expect(message(withRequired(#""platform":"iOS""#)) == #"platform: unknown value "iOS""#)
    #expect(message(withRequired(#""platform":1"#)) == "platform: must be a string")
  }

  @Test func testFlag() {
    #expect(event(withRequired(#""test":true"#))?.isTest == true)
    #expect(event(withRequired(#""test":false"#))?.isTest == false)
    #expect(event(withRequired(""))?.isTest == false)
    #expect(message(withRequired(#""test":"true""#)) == "test: must be true or false")
    #expect(message(withRequired(#""test":1"#)) == "test: must be true or false")
  }

  @Test(arguments: [
    ("2025-11-29T17:30:15Z", now),
    ("2025-11-29t17:30:15z", now),
    ("2025-11-29T23:00:15+05:30", now),
    ("2025-11-29T09:30:15-08:00", now),
    ("2025-11-29T17:30:15+00:00", now),
    ("2025-11-29T17:30:15-00:00", now),
    ("2025-11-29T17:30:15.5Z", now + 500),
    ("2025-11-29T17:30:15.123456789Z", now + 123),
    ("2025-11-29T17:30:15.999999Z", now + 999),
    ("2025-11-29T17:20:15.000+00:00", now - 10 * minute),
  ])
  func timestampsWithOffsetsAndFractions(text: String, expected: Int64) {
    #expect(event(withRequired("\"timestamp\":\"\(text)\""))?.timestampMs == expected)
  }

  @Test func timestampBoundsAreInclusive() {
    func timestamp(_ ms: Int64) -> String {
      withRequired("\"timestamp\":\"\(Timestamp.formatRFC3339(ms))\"")
    }
    #expect(event(timestamp(now + 10 * minute))?.timestampMs == now + 10 * minute)
    #expect(
      message(timestamp(now + 10 * minute + 1)) == "timestamp: more than 10 minutes in the future")
    #expect(event(timestamp(now - 90 * day))?.timestampMs == now - 90 * day)
    #expect(message(timestamp(now - 90 * day - 1)) == "timestamp: older than 90 days")
    #expect(message(timestamp(0)) == "timestamp: older than 90 days")
  }

  @Test func futureBoundAppliesAfterTheOffset() {
    // 17:45:15 local at +00:10 is 17:35:15Z, five minutes ahead: fine.
    #expect(event(withRequired(#""timestamp":"2025-11-29T17:45:15+00:10""#)) != nil)
    // 17:35:15 local at -00:10 is 17:45:15Z, fifteen minutes ahead.
    #expect(
      message(withRequired(#""timestamp":"2025-11-29T17:35:15-00:10""#))
        == "timestamp: more than 10 minutes in the future")
  }

  @Test(arguments: [
    "2025-11-29", "2025-11-29T17:30:15", "2025-11-29 17:30:15Z", "2025-11-29T17:30Z",
    "2025-02-30T10:00:00Z", "2025-13-01T10:00:00Z", "2025-11-29T24:00:00Z", "2025-11-29T17:60:15Z",
    "2025-11-29T17:30:15.Z", "2025-11-29T17:30:15+0530", "1764437415000", "", "yesterday",
  ])
  func malformedTimestamps(text: String) {
    #expect(
      message(withRequired("\"timestamp\":\"\(text)\""))
        == "timestamp: must be an RFC 3339 date-time with an offset, like 2026-11-29T17:30:15Z")
  }

  @Test func timestampMustBeAString() {
    #expect(message(withRequired(#""timestamp":1764437415000"#)) == "timestamp: must be a string")
  }

  @Test func firstErrorInContractOrderIsReported() {
    let json = #"{"test":"x","platform":"x","appVersion":"","action":"x","id":""}"#
    #expect(message(json) == "id: must be 1 to 64 characters")
    #expect(message(#"{"test":"x","appVersion":"","action":"x"}"#) == "updateId: required")
    #expect(
      message(#"{"test":"x","platform":"x","updateId":"u","action":"x"}"#)
        == #"action: unknown value "x""#)
    #expect(
      message(withRequired(#""test":"x","platform":"x","osVersion":"""#))
        == "osVersion: must be 1 to 32 characters")
  }
}

/// The same event validated from its parsed value and straight from the
/// reader, as `EventBatchDecoder` does.
private func bothWays(_ json: String) -> (
  parsed: Result<Event, EventValidationError>, direct: Result<Event, EventValidationError>
)? {
  let bytes = Array(json.utf8)
  let receivedAtMs: Int64 = 1_764_437_415_000
  return bytes.withUnsafeBytes { raw in
    var parsing = JSONReader(bytes: raw, maxDepth: 32)
    var direct = JSONReader(bytes: raw, maxDepth: 32)
    guard let value = try? parsing.parseValue(depth: 2),
      let directResult = try? EventValidator().validateObject(
        &direct, depth: 2, receivedAtMs: receivedAtMs)
    else { return nil }
    #expect(direct.position == parsing.position, "both end after the object")
    return (EventValidator().validate(value, receivedAtMs: receivedAtMs), directResult)
  }
}

@Suite("An event validated straight from the bytes")
struct EventValidatorDirectTests {
  @Test(
    "answers as validating the parsed value does",
    arguments: [
      #"{"updateId":"u1","action":"impression","appVersion":"2.0"}"#,
      #"{ "id" : "a" , "updateId":"u1","action":"download","appVersion":"2.0","installId":"i","platform":"ios","osVersion":"17.1","previousAppVersion":"1.9","test":true,"timestamp":1764437414000 }"#,
      #"{"\u0069d":"escaped key","updateId":"u1","action":"later","appVersion":"2.0"}"#,
      #"{"updateId":"u1","updateId":"u2","action":"ignore","appVersion":"2.0"}"#,
      #"{"updateId":"u1","action":"impression","appVersion":"2.0","extra":{"deep":[1,2,{"x":null}]}}"#,
      #"{"updateId":"u1","action":"impression","appVersion":null}"#,
      #"{"updateId":"u1","action":"impression","appVersion":"2.0","installId":null,"test":"yes"}"#,
      #"{"updateId":7,"action":"impression","appVersion":"2.0"}"#,
      #"{"updateId":"u1","action":"clicked","appVersion":"2.0"}"#,
      #"{"ID":"case matters","updateId":"u1","action":"impression","appVersion":"2.0"}"#,
      #"{"updateI":"prefix","updateIdX":"longer","action":"impression","appVersion":"2.0"}"#,
      #"{"updateId":"u1","action":"impression","appVersion":"2.\u00e9"}"#,
      #"{}"#,
    ])
  func sameAnswer(_ json: String) throws {
    let answers = try #require(bothWays(json))
    #expect(answers.direct == answers.parsed)
  }

  @Test(
    "a whole document (a line of uptake import): the answer, or the JSON error, of parsing it",
    arguments: [
      #"{"updateId":"u1","action":"impression","appVersion":"2.0"}"#,
      #"  {"updateId":"u1","action":"later","appVersion":"2.0","extra":[{"a":[]}]}  "#,
      #"{"updateId":"u1","action":"clicked","appVersion":"2.0"}"#,
      #"[1,2]"#, #""event""#, "42", "null", "",
      "   ", "not json", #"{"updateId":"u1"} x"#, #"{"updateId":"u1","#,
      #"{"updateId":"u1","action":"impression","appVersion":"2.0","x":01}"#,
      #"{"updateId":"u1","action":"impression","appVersion":"2.0","x":"\ud800"}"#,
      #"{"a":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
    ])
  func wholeDocument(_ json: String) {
    let receivedAtMs: Int64 = 1_764_437_415_000
    let bytes = Array(json.utf8)
    func parsed() -> Result<Result<Event, EventValidationError>, JSONParseError> {
      do {
        let value = try JSONParser().parse(bytes)
        return .success(EventValidator().validate(value, receivedAtMs: receivedAtMs))
      } catch {
        return .failure(error)
      }
    }
    let direct = bytes.withUnsafeBytes { raw in
      Result { () throws(JSONParseError) in
        try EventValidator().validateDocument(raw, receivedAtMs: receivedAtMs)
      }
    }
    #expect(direct == parsed(), "\(json)")
  }

  @Test("malformed JSON inside the event throws, as parsing it does")
  func malformedThrows() {
    for json in [#"{"updateId":"u1",}"#, #"{"updateId" "u1"}"#, #"{"a":1 "b":2}"#, #"{"a":"\x"}"#] {
      #expect(bothWays(json) == nil, "\(json)")
    }
  }
}
