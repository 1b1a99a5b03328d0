import Foundation
import Testing
import UptakeTestSupport

@Suite("uptaked ingest over HTTP", .timeLimit(.minutes(3)))
struct IngestEndToEndTests {
  @Test("POST /v1/events stores valid events and answers with counts and rejections")
  func happyPath() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let body = batchJSON([
      eventJSON(id: "e1", installId: "i1"),
      eventJSON(id: "e2", action: "clicked"),
      eventJSON(id: "e3", action: "download", installId: "i1"),
      eventJSON(id: "e1", installId: "i1"),
    ])

    let response = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, body)

    #expect(response.status == 200)
    #expect(response.header("Content-Type") == "application/json")
    #expect(
      response.text
        == #"{"accepted":2,"duplicates":1,"rejected":[{"index":1,"error":"action: unknown value \"clicked\""}]}"#
    )
  }

  @Test("header names are matched in any letter case, as HTTP/1.1 wants")
  func headerNamesInAnyCase() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let body = batchJSON([eventJSON(id: "any-case")])
    let connection = try RawConnection(port: fixture.daemon.port)
    // The server lower-cases names as it reads them; a client that shouts
    // them (or mixes cases) must still be authenticated and admitted.
    connection.send(
      "POST /v1/events HTTP/1.1\r\nHOST: uptake\r\nAUTHORIZATION: Bearer \(fixture.ingestKey)\r\n"
        + "content-TYPE: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    let response = try #require(connection.readResponse(timeout: 10))
    #expect(response.status == 200)
    #expect(response.body == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)

    let refused = try RawConnection(port: fixture.daemon.port)
    refused.send(
      "POST /v1/events HTTP/1.1\r\nHost: uptake\r\nX-UPTAKE-KEY: \(fixture.ingestKey)\r\n"
        + "CONTENT-TYPE: text/plain\r\nContent-Length: 2\r\n\r\n{}")
    #expect(refused.readResponse(timeout: 10)?.status == 415)
  }

  @Test("a request head of 6 KiB is taken; one over the connection's 8 KiB is 431")
  func requestHeadSizes() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let url = fixture.daemon.url("/v1/events")
    let body = batchJSON([eventJSON(id: "big-head")])

    let large = try client.postJSON(
      url, key: fixture.ingestKey, body,
      headers: ["X-Forwarded-For": String(repeating: "a", count: 6 * 1024)])
    #expect(large.text == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)

    // libmicrohttpd answers a head past its buffer itself and closes with
    // the rest unread, so the kernel resets the connection: a client that
    // is still writing then fails with "broken pipe" before it reads the
    // 431. Sent in one write, the answer is already here when the reset is.
    let tooLarge = try RawConnection(port: fixture.daemon.port)
    tooLarge.send(
      "POST /v1/events HTTP/1.1\r\nHost: uptake\r\nAuthorization: Bearer \(fixture.ingestKey)\r\n"
        + "X-Forwarded-For: \(String(repeating: "a", count: 9 * 1024))\r\n"
        + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    #expect(tooLarge.readResponse(timeout: 10)?.status == 431)
  }

  @Test("a retried batch is answered with duplicates only")
  func retriedBatch() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let body = batchJSON(
      (0..<5).map { eventJSON(id: "retry-\($0)") } + [eventJSON(id: "bad", appVersion: "")])

    let first = try client.postJSON(fixture.daemon.url("/v1/events"), key: fixture.ingestKey, body)
    let retry = try client.postJSON(fixture.daemon.url("/v1/events"), key: fixture.ingestKey, body)

    #expect(
      first.text
        == #"{"accepted":5,"duplicates":0,"rejected":[{"index":5,"error":"appVersion: must be 1 to 32 characters"}]}"#
    )
    #expect(
      retry.text
        == #"{"accepted":0,"duplicates":5,"rejected":[{"index":5,"error":"appVersion: must be 1 to 32 characters"}]}"#
    )
  }

  @Test("a gzip body with Content-Encoding: gzip is accepted")
  func gzipBody() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let body = batchJSON((0..<3).map { eventJSON(id: "gz-\($0)") })

    let response = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, Data(try gzip(Array(body.utf8))),
      headers: ["Content-Encoding": "gzip"])

    #expect(response.status == 200)
    #expect(response.text == #"{"accepted":3,"duplicates":0,"rejected":[]}"#)
  }

  @Test("the ingest key is accepted in X-Uptake-Key too")
  func keyInXUptakeKey() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()

    let response = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: nil, batchJSON([eventJSON(id: "x")]),
      headers: ["X-Uptake-Key": fixture.ingestKey])

    #expect(response.status == 200)
    #expect(response.text == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)
  }

  @Test("a batch of exactly 1000 events is accepted")
  func thousandEvents() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()

    let thousand = batchJSON((0..<1000).map { eventJSON(id: "k\($0)") })
    let response = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, thousand)

    #expect(response.status == 200)
    #expect(response.text == #"{"accepted":1000,"duplicates":0,"rejected":[]}"#)
  }

  @Test("an event of exactly 32 KiB is accepted; one byte more refuses the request with 413")
  func eventSizeLimit() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    func event(bytes: Int, id: String) -> String {
      let start = String(eventJSON(id: id).dropLast()) + ",\"padding\":\""
      let end = "\"}"
      return start + String(repeating: "p", count: bytes - start.utf8.count - end.utf8.count) + end
    }
    #expect(event(bytes: 32 * 1024, id: "a").utf8.count == 32_768)

    let atLimit = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey,
      batchJSON([event(bytes: 32 * 1024, id: "a")]))
    let overLimit = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey,
      batchJSON([eventJSON(id: "b"), event(bytes: 32 * 1024 + 1, id: "c")]))

    #expect(atLimit.text == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)
    #expect(overLimit.status == 413)
    #expect(ErrorBody(overLimit.body)?.code == "payload_too_large")
    let retried = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON([eventJSON(id: "b")]))
    #expect(
      retried.text == #"{"accepted":1,"duplicates":0,"rejected":[]}"#,
      "nothing of the 413 batch was stored")
  }
}
