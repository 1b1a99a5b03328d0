import Foundation
import Testing
import UptakeTestSupport

/// Every whole-request failure of the contract's table that a client can
/// cause, against one daemon; none of them may store anything.
@Suite("uptaked refuses bad requests as a whole", .timeLimit(.minutes(3)))
struct IngestErrorsEndToEndTests {
  struct Refusal {
    let name: String
    let method: String
    let path: String
    var key: Key = .ingest
    var headers: [String: String] = ["Content-Type": "application/json"]
    var body: Data? = nil
    let status: Int
    let code: String
  }

  enum Key { case missing, ingest, read }

  static func refusals() throws -> [Refusal] {
    let one = eventJSON()
    let oversizedEvent =
      eventJSON(updateId: "big").dropLast()
      + ",\"padding\":\"\(String(repeating: "p", count: 33 * 1024))\"}"
    return [
      Refusal(
        name: "empty body", method: "POST", path: "/v1/events", body: Data(), status: 400,
        code: "bad_request"),
      Refusal(
        name: "not JSON", method: "POST", path: "/v1/events", body: Data("events: []".utf8),
        status: 400, code: "bad_request"),
      Refusal(
        name: "JSON but not an object", method: "POST", path: "/v1/events",
        body: Data("[1,2]".utf8), status: 400, code: "bad_request"),
      Refusal(
        name: "no events array", method: "POST", path: "/v1/events",
        body: Data(#"{"event":[]}"#.utf8), status: 400, code: "bad_request"),
      Refusal(
        name: "events not an array", method: "POST", path: "/v1/events",
        body: Data(#"{"events":{}}"#.utf8), status: 400, code: "bad_request"),
      Refusal(
        name: "0 events", method: "POST", path: "/v1/events", body: Data(batchJSON([]).utf8),
        status: 400, code: "bad_request"),
      Refusal(
        name: "1001 events", method: "POST", path: "/v1/events",
        body: Data(batchJSON(Array(repeating: one, count: 1001)).utf8), status: 400,
        code: "bad_request"),
      Refusal(
        name: "invalid UTF-8", method: "POST", path: "/v1/events",
        body: Data(#"{"events":[{"updateId":"u1","action":"impression","appVersion":""#.utf8)
          + Data([0xFF, 0xFE])
          + Data(#""}]}"#.utf8), status: 400, code: "bad_request"),
      Refusal(
        name: "bad gzip", method: "POST", path: "/v1/events",
        headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"],
        body: Data(batchJSON([one]).utf8), status: 400, code: "bad_request"),
      Refusal(
        name: "no key", method: "POST", path: "/v1/events", key: .missing,
        body: Data(batchJSON([one]).utf8), status: 401, code: "unauthorized"),
      Refusal(
        name: "read key on ingest", method: "POST", path: "/v1/events", key: .read,
        body: Data(batchJSON([one]).utf8), status: 401, code: "unauthorized"),
      Refusal(
        name: "ingest key on a report", method: "GET", path: "/v1/updates", key: .ingest,
        headers: [:], status: 401, code: "unauthorized"),
      Refusal(
        name: "unknown path", method: "GET", path: "/v1/nothing", headers: [:], status: 404,
        code: "not_found"),
      Refusal(
        name: "wrong method", method: "GET", path: "/v1/events", headers: [:], status: 405,
        code: "method_not_allowed"),
      Refusal(
        name: "body over 1 MiB", method: "POST", path: "/v1/events",
        body: Data(repeating: UInt8(ascii: " "), count: (1 << 20) + 1), status: 413,
        code: "payload_too_large"),
      Refusal(
        name: "one event over 32 KiB", method: "POST", path: "/v1/events",
        body: Data(batchJSON([one, String(oversizedEvent)]).utf8), status: 413,
        code: "payload_too_large"),
      Refusal(
        name: "text/plain", method: "POST", path: "/v1/events",
        headers: ["Content-Type": "text/plain"],
        body: Data(batchJSON([one]).utf8), status: 415, code: "unsupported_media_type"),
      Refusal(
        name: "Content-Encoding br", method: "POST", path: "/v1/events",
        headers: ["Content-Type": "application/json", "Content-Encoding": "br"],
        body: Data(batchJSON([one]).utf8), status: 415, code: "unsupported_media_type"),
    ]
  }

  @Test(
    "each is answered with its status and {\"error\":{\"code\",\"message\"}}, and stores nothing")
  func wholeRequestFailures() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()

    for refusal in try Self.refusals() {
      var headers = refusal.headers
      switch refusal.key {
      case .missing: break
      case .ingest: headers["Authorization"] = "Bearer \(fixture.ingestKey)"
      case .read: headers["Authorization"] = "Bearer \(fixture.readKey)"
      }
      let response = try client.send(
        refusal.method, fixture.daemon.url(refusal.path), headers: headers, body: refusal.body)

      #expect(response.status == refusal.status, "\(refusal.name)")
      #expect(response.header("Content-Type") == "application/json", "\(refusal.name)")
      let error = try #require(ErrorBody(response.body), "\(refusal.name): \(response.text)")
      #expect(error.code == refusal.code, "\(refusal.name)")
      #expect(!error.message.isEmpty, "\(refusal.name)")
    }

    let stored = try client.get(
      fixture.daemon.url("/v1/updates?test=include"), key: fixture.readKey)
    #expect(stored.text == #"{"updates":[]}"#)
  }

  @Test("401, 404, 405 and bad gzip come with their exact headers and bodies")
  func exactBodies() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()

    let unauthorized = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: nil, batchJSON([eventJSON()]))
    #expect(unauthorized.status == 401)
    #expect(unauthorized.header("WWW-Authenticate") == "Bearer")
    #expect(
      unauthorized.text == #"{"error":{"code":"unauthorized","message":"missing or unknown key"}}"#)

    let notFound = try client.get(fixture.daemon.url("/v2/events"))
    #expect(notFound.text == #"{"error":{"code":"not_found","message":"no such path"}}"#)

    let wrongMethod = try client.send(
      "PUT", fixture.daemon.url("/v1/events"),
      headers: ["Authorization": "Bearer \(fixture.ingestKey)"])
    #expect(wrongMethod.status == 405)
    #expect(wrongMethod.header("Allow") == "POST")
    #expect(wrongMethod.text == #"{"error":{"code":"method_not_allowed","message":"use POST"}}"#)

    let badGzip = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON([eventJSON()]),
      headers: ["Content-Encoding": "gzip"])
    #expect(badGzip.text == #"{"error":{"code":"bad_request","message":"body is not valid gzip"}}"#)
  }
}

/// The contract's error body: exactly {"error": {"code": ..., "message": ...}}.
struct ErrorBody {
  let code: String
  let message: String

  init?(_ data: Data) {
    guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      object.count == 1, let error = object["error"] as? [String: Any], error.count == 2,
      let code = error["code"] as? String, let message = error["message"] as? String
    else { return nil }
    self.code = code
    self.message = message
  }
}

@Suite("uptaked's body size limit of 1 MiB as sent", .timeLimit(.minutes(3)))
struct BodySizeEndToEndTests {
  /// A valid body of exactly `bytes` bytes: one event, padded at the top level.
  static func body(bytes: Int) -> Data {
    let start = #"{"events":["# + eventJSON(id: "padded") + #"],"padding":""#
    let end = #""}"#
    return Data(
      (start + String(repeating: "p", count: bytes - start.utf8.count - end.utf8.count) + end).utf8)
  }

  @Test("a body of exactly 1 MiB is accepted")
  func exactlyOneMiB() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }

    let response = try HTTPClient().postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, Self.body(bytes: 1 << 20))

    #expect(response.text == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)
  }

  @Test("a chunked body (no Content-Length) within 1 MiB is accepted")
  func chunkedWithinLimit() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }

    let response = try HTTPClient().postChunkedJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, Self.body(bytes: 200_000))

    #expect(response.text == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)
  }

  @Test(
    "a chunked body (no Content-Length) over 1 MiB is 413 too")
  func chunkedOverOneMiB() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let response = try HTTPClient().postChunkedJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, Self.body(bytes: (1 << 20) + 1))

    #expect(response.status == 413)
    #expect(ErrorBody(response.body)?.code == "payload_too_large")
  }
}

@Suite("a request refused from its head alone", .timeLimit(.minutes(3)))
struct EarlyRefusalEndToEndTests {
  @Test("its body is still read, so a client sending it slowly gets its 413 or 401, not a reset")
  func bodyReadBeforeTheAnswer() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let connection = try RawConnection(port: fixture.daemon.port)

    // Announced past 1 MiB: refused from Content-Length. The body follows
    // after a pause, as from a slow phone; answered and closed at once, the
    // daemon would have reset the connection under these writes.
    let oversized = (1 << 20) + 1
    #expect(
      connection.send(
        "POST /v1/events HTTP/1.1\r\nHost: uptake\r\nAuthorization: Bearer \(fixture.ingestKey)\r\n"
          + "Content-Type: application/json\r\nContent-Length: \(oversized)\r\n\r\n"))
    usleep(200_000)
    let piece = String(repeating: " ", count: oversized / 16)
    let bodySent =
      (0..<16).allSatisfy { _ in connection.send(piece) }
      && connection.send(String(repeating: " ", count: oversized % 16))
    #expect(bodySent, "the daemon closed the connection before the body was sent")
    let tooLarge = try #require(connection.readResponse(timeout: 10))
    #expect(tooLarge.status == 413)
    #expect(tooLarge.body.contains(#""code":"payload_too_large""#))

    // The connection is whole afterwards: a wrong key with a body, then a
    // good request, on the same connection.
    let body = batchJSON([eventJSON(id: "after-refusals")])
    #expect(
      connection.send(
        "POST /v1/events HTTP/1.1\r\nHost: uptake\r\nAuthorization: Bearer wrong\r\n"
          + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"))
    usleep(100_000)
    #expect(connection.send(body))
    #expect(connection.readResponse(timeout: 10)?.status == 401)
    #expect(
      connection.send(
        "POST /v1/events HTTP/1.1\r\nHost: uptake\r\nAuthorization: Bearer \(fixture.ingestKey)\r\n"
          + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"))
    #expect(
      connection.readResponse(timeout: 10)?.body
        == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)
  }

  @Test("a client that waits for 100 Continue is answered at once and sends no body")
  func expectContinueAnsweredAtOnce() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let connection = try RawConnection(port: fixture.daemon.port)

    connection.send(
      "POST /v1/events HTTP/1.1\r\nHost: uptake\r\nAuthorization: Bearer wrong\r\n"
        + "Content-Type: application/json\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n")
    let refused = try #require(connection.readResponse(timeout: 10))
    #expect(refused.status == 401)
  }
}
