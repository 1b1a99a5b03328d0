import Testing
import UptakeTestSupport

@testable import UptakeCore

private let now: Int64 = 1_764_437_415_000
private let valid = #"{"updateId":"u1","action":"impression","appVersion":"2.0"}"#

private func decode(_ body: String, limits: IngestLimits = IngestLimits()) -> Result<
  DecodedBatch, BatchDecodingError
> {
  decode(bytes: Array(body.utf8), limits: limits)
}

private func decode(bytes: [UInt8], limits: IngestLimits = IngestLimits()) -> Result<
  DecodedBatch, BatchDecodingError
> {
  Result { () throws(BatchDecodingError) in
    try EventBatchDecoder(limits: limits).decode(bytes, receivedAtMs: now)
  }
}

/// The 400 message, or nil when the body is not refused with a 400.
private func badRequest(_ body: String) -> String? {
  badRequest(bytes: Array(body.utf8))
}

private func badRequest(bytes: [UInt8]) -> String? {
  guard case .failure(.badRequest(let message)) = decode(bytes: bytes) else { return nil }
  return message
}

/// The index of the event that made the body too large, if that is what failed.
private func tooLargeIndex(_ result: Result<DecodedBatch, BatchDecodingError>) -> Int? {
  guard case .failure(.eventTooLarge(let index)) = result else { return nil }
  return index
}

@Suite struct EventBatchDecoderTests {
  @Test func acceptsAValidBatch() throws {
    let body = """
      {"events": [
        {"updateId": "u1", "action": "impression", "appVersion": "2.0"},
        {"updateId": 7, "action": "later", "appVersion": "2.0", "test": true}
      ]}
      """
    let batch = try decode(body).get()
    #expect(
      batch.events == [
        Event(updateId: "u1", action: .impression, appVersion: "2.0", timestampMs: now),
        Event(updateId: "7", action: .later, appVersion: "2.0", timestampMs: now, isTest: true),
      ])
    #expect(batch.eventIndexes == [0, 1])
    #expect(batch.rejected == [])
    #expect(batch.total == 2)
  }

  @Test func rejectsEventsAloneAndKeepsTheRest() throws {
    let body = batchJSON([
      valid,
      #"{"updateId":"u1","action":"clicked","appVersion":"2.0"}"#,
      valid,
      "[]",
      #"{"action":"later","appVersion":"2.0"}"#,
      valid,
    ])
    let batch = try decode(body).get()
    #expect(batch.events.count == 3)
    #expect(batch.eventIndexes == [0, 2, 5])
    #expect(
      batch.rejected == [
        Rejection(index: 1, error: #"action: unknown value "clicked""#),
        Rejection(index: 3, error: "event: not an object"),
        Rejection(index: 4, error: "updateId: required"),
      ])
    #expect(batch.total == 6)
  }

  @Test func allEventsMayBeRejected() throws {
    let batch = try decode(batchJSON(["1", "null"])).get()
    #expect(batch.events == [])
    #expect(batch.eventIndexes == [])
    #expect(batch.rejected.map(\.index) == [0, 1])
    #expect(batch.total == 2)
  }

  @Test func unknownTopLevelKeysAreIgnored() throws {
    let body = """
      {"sdk": {"name": "uptake", "v": [1, 2]}, "events": [\(valid)], "sentAt": null, "n": 1.5}
      """
    let batch = try decode(body).get()
    #expect(batch.events.count == 1)
    #expect(batch.total == 1)
  }

  @Test(arguments: ["", " ", "nope", "{", "{\"events\":[", "{\"events\":[\(valid)]", "{events:[]}"])
  func notJSON(body: String) {
    #expect(badRequest(body)?.hasPrefix("the body is not valid JSON: ") == true)
  }

  @Test func notJSONSaysWhereAndWhy() {
    let prefix = "{\"events\":[\(valid),"
    #expect(
      badRequest(prefix + "]}")
        == "the body is not valid JSON: unexpected ']' where a value should start at byte \(prefix.utf8.count)"
    )
    #expect(badRequest("") == "the body is not valid JSON: no JSON value at byte 0")
  }

  @Test(arguments: ["[\(valid)]", "\"events\"", "42", "null", " true "])
  func notAnObject(body: String) {
    #expect(badRequest(body) == "the body must be a JSON object with an \"events\" array")
  }

  @Test(arguments: ["{}", "{\"event\":[\(valid)]}", "{\"Events\":[\(valid)]}"])
  func eventsMissing(body: String) {
    #expect(badRequest(body) == "the body has no \"events\" array")
  }

  @Test(arguments: ["null", "{}", "\(valid)", "\"[]\"", "1"])
  func eventsNotAnArray(events: String) {
    #expect(badRequest("{\"events\":\(events)}") == "\"events\" must be an array")
  }

  @Test func eventsGivenTwiceIsAmbiguous() {
    #expect(
      badRequest("{\"events\":[\(valid)],\"events\":[\(valid)]}")
        == "the body has more than one \"events\" key")
  }

  @Test func zeroEvents() {
    #expect(badRequest(#"{"events":[]}"#) == "\"events\" must hold 1 to 1000 events, not 0")
    #expect(badRequest(#"{"events":[ ]}"#) == "\"events\" must hold 1 to 1000 events, not 0")
  }

  @Test func oneThousandEventsButNotMore() throws {
    let thousand = batchJSON(Array(repeating: valid, count: 1000))
    #expect(try decode(thousand).get().events.count == 1000)
    #expect(
      badRequest(batchJSON(Array(repeating: valid, count: 1001)))
        == "\"events\" must hold 1 to 1000 events, not more")
  }

  @Test func batchSizeFollowsTheLimits() {
    var limits = IngestLimits()
    limits.maxEventsPerBatch = 2
    guard case .failure(.badRequest) = decode(batchJSON([valid, valid, valid]), limits: limits)
    else {
      Issue.record("three events passed a limit of two")
      return
    }
    #expect((try? decode(batchJSON([valid, valid]), limits: limits).get())?.total == 2)
  }

  @Test func invalidUTF8InAnEvent() {
    let prefix = Array(#"{"events":[{"updateId":"u1","action":"later","appVersion":"2."#.utf8)
    let bytes = prefix + [0xC0, 0xAF] + Array(#""}]}"#.utf8)
    #expect(
      badRequest(bytes: bytes)
        == "the body is not valid JSON: invalid UTF-8 at byte \(prefix.count)")
  }

  @Test func invalidUTF8ElsewhereInTheBody() {
    let bytes =
      Array(#"{"note":""#.utf8) + [0xED, 0xA0, 0x80] + Array("\",\"events\":[\(valid)]}".utf8)
    #expect(badRequest(bytes: bytes) == "the body is not valid JSON: invalid UTF-8 at byte 9")
    #expect(badRequest(bytes: [0xFF]) != nil)
  }

  @Test func trailingDataAfterTheObject() {
    #expect(badRequest(batchJSON([valid]) + " {}") != nil)
    #expect((try? decode(batchJSON([valid]) + " \r\n\t").get())?.total == 1)
  }

  /// An event whose JSON text is exactly `size` bytes.
  private func event(ofSize size: Int) -> String {
    let shell = #"{"updateId":"u1","action":"later","appVersion":"2.0","pad":""}"#
    let pad = String(repeating: "x", count: size - shell.utf8.count)
    return #"{"updateId":"u1","action":"later","appVersion":"2.0","pad":"\#(pad)"}"#
  }

  @Test func anEventOverThirtyTwoKiBFailsTheWholeRequest() {
    #expect(event(ofSize: 32 * 1024).utf8.count == 32 * 1024)
    let atLimit = batchJSON([valid, event(ofSize: 32 * 1024)])
    #expect((try? decode(atLimit).get())?.events.count == 2)
    let over = batchJSON([valid, valid, event(ofSize: 32 * 1024 + 1), valid])
    #expect(tooLargeIndex(decode(over)) == 2)
  }

  @Test func eventSizeCountsFromFirstToLastByteOnly() throws {
    // Whitespace around an event is not part of it.
    let spaced = "{\"events\":[   \n\(event(ofSize: 32 * 1024))\n   ]}"
    #expect(try decode(spaced).get().total == 1)
  }

  @Test func rejectedEventsAreMeasuredToo() {
    let big = "[\"\(String(repeating: "y", count: 40_000))\"]"
    #expect(tooLargeIndex(decode(batchJSON([big]))) == 0)
  }

  @Test func nestingIsLimitedAcrossTheWholeBody() throws {
    // Body object and events array are levels 1 and 2, the event 3, so an
    // event may hold 29 more levels.
    func nested(_ levels: Int) -> String {
      let inner = String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
      return #"{"updateId":"u1","action":"later","appVersion":"2.0","x":\#(inner)}"#
    }
    #expect(try decode(batchJSON([nested(29)])).get().events.count == 1)
    let tooDeep = batchJSON([nested(30)])
    // The error is at the last of the 30 inner brackets, the 33rd level,
    // which the 30 closing brackets and "}]}" follow.
    let offset = tooDeep.utf8.count - 3 - 30 - 1
    #expect(
      badRequest(tooDeep)
        == "the body is not valid JSON: nested deeper than 32 levels at byte \(offset)")
    let deepKey =
      "{\"x\":" + String(repeating: "[", count: 32) + String(repeating: "]", count: 32) + "}"
    #expect(badRequest(deepKey)?.contains("nested deeper than 32 levels") == true)
  }

  @Test func rawBufferEntryPoint() throws {
    let bytes = Array(batchJSON([valid, "{}"]).utf8)
    let batch = try bytes.withUnsafeBytes { raw in
      Result { () throws(BatchDecodingError) in
        try EventBatchDecoder().decode(raw, receivedAtMs: now)
      }
    }.get()
    #expect(batch.eventIndexes == [0])
    #expect(batch.rejected == [Rejection(index: 1, error: "updateId: required")])
  }

  @Test func eventsWithoutATimestampGetTheReceiveTime() throws {
    let body = Array(batchJSON([valid]).utf8)
    let batch = try EventBatchDecoder().decode(body, receivedAtMs: 1234)
    #expect(batch.events.map(\.timestampMs) == [1234])
  }
}
