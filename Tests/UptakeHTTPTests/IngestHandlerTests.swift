import Foundation
import Testing
import UptakeCore
import UptakeStore
import UptakeTestSupport

@testable import UptakeHTTP

@Suite("Ingest handler: decode, store through the batch writer, answer after commit")
struct IngestHandlerTests {
  @Test("200 after commit: accepted, duplicates and each rejected event by index")
  func answersAfterCommit() throws {
    try IngestFixture.with { (fixture) throws in
      let body = """
        {"events": [
          {"id": "e1", "updateId": "u1", "action": "impression", "appVersion": "1.0"},
          {"id": "e2", "updateId": "u1", "action": "clicked", "appVersion": "1.0"},
          {"id": "e1", "updateId": "u1", "action": "impression", "appVersion": "1.0"},
          {"updateId": 782000001589015, "action": "download", "appVersion": "1.0"}
        ]}
        """
      let response = fixture.post(Array(body.utf8))

      #expect(response.status == 200)
      #expect(response.header("Content-Type") == "application/json")
      #expect(
        response.bodyText
          == #"{"accepted":2,"duplicates":1,"rejected":[{"index":1,"error":"action: unknown value \"clicked\""}]}"#
      )
      #expect(try fixture.storedUpdateIds() == ["u1", "782000001589015"])
    }
  }

  @Test("a batch of only invalid events is 200 with nothing accepted")
  func allRejected() throws {
    try IngestFixture.with { (fixture) throws in
      let response = fixture.post(Array(#"{"events": [{"action": "later"}, 7]}"#.utf8))

      #expect(response.status == 200)
      #expect(
        response.bodyText
          == #"{"accepted":0,"duplicates":0,"rejected":[{"index":0,"error":"updateId: required"},{"index":1,"error":"event: not an object"}]}"#
      )
      #expect(try fixture.storedUpdateIds() == [])
    }
  }

  @Test("a gzip body is inflated, then handled as any other")
  func gzipBody() throws {
    try IngestFixture.with { (fixture) throws in
      let json = #"{"events":[{"id":"z","updateId":"u1","action":"later","appVersion":"2.0"}]}"#
      let response = fixture.post(try gzip(Array(json.utf8)), headers: ["Content-Encoding": "gzip"])

      #expect(response.status == 200)
      #expect(response.bodyText == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)
    }
  }

  @Test("a body that says gzip but is not is 400 bad_request")
  func badGzip() throws {
    try IngestFixture.with { (fixture) throws in
      let response = fixture.post(
        Array(#"{"events":[]}"#.utf8), headers: ["Content-Encoding": "gzip"])

      #expect(response.status == 400)
      #expect(
        response.bodyText == #"{"error":{"code":"bad_request","message":"body is not valid gzip"}}"#
      )
    }
  }

  @Test("a gzip body over 8 MiB once inflated is 413, without inflating it all")
  func gzipBomb() throws {
    try IngestFixture.with { (fixture) throws in
      let response = fixture.post(
        try gzippedZeros(count: 50_000_000), headers: ["Content-Encoding": "gzip"])

      #expect(response.status == 413)
      #expect(
        response.bodyText
          == #"{"error":{"code":"payload_too_large","message":"body over 8388608 bytes after gzip decoding"}}"#
      )
    }
  }

  @Test("one event over 32 KiB is 413 for the whole request, and nothing is stored")
  func eventTooLarge() throws {
    try IngestFixture.with { (fixture) throws in
      let padding = String(repeating: "x", count: 33 * 1024)
      let body = """
        {"events": [{"updateId": "u1", "action": "later", "appVersion": "1.0"},
          {"updateId": "u1", "action": "later", "appVersion": "1.0", "note": "\(padding)"}]}
        """
      let response = fixture.post(Array(body.utf8))

      #expect(response.status == 413)
      #expect(
        response.bodyText
          == #"{"error":{"code":"payload_too_large","message":"events[1] is over 32 KiB"}}"#)
      #expect(try fixture.storedUpdateIds() == [])
    }
  }

  @Test("a writer that has stopped makes ingest 503 with Retry-After")
  func writerStopped() throws {
    try IngestFixture.with { (fixture) throws in
      fixture.writer.stop()
      let response = fixture.post(
        Array(#"{"events":[{"updateId":"u1","action":"later","appVersion":"1.0"}]}"#.utf8))

      #expect(response.status == 503)
      #expect(response.header("Retry-After") == "2")
      #expect(
        response.bodyText
          == #"{"error":{"code":"unavailable","message":"ingest queue full or shutting down"}}"#)
    }
  }

  @Test("the answer without rejections is the JSON the general writer builds")
  func answerWithoutRejections() {
    for (accepted, duplicates) in [(0, 0), (1, 0), (0, 1), (57, 943)] {
      var writer = JSONWriter()
      writer.beginObject()
      writer.member("accepted", accepted)
      writer.member("duplicates", duplicates)
      writer.key("rejected")
      writer.beginArray()
      writer.endArray()
      writer.endObject()
      let response = IngestHandler.answer(
        InsertOutcome(accepted: accepted, duplicates: duplicates), [])
      #expect(response.status == 200)
      #expect(String(decoding: response.body, as: UTF8.self) == writer.text)
      #expect(response.headers.map { "\($0.0): \($0.1)" } == ["Content-Type: application/json"])
    }
  }
}

/// The ingest route of app "shop" over a temporary database, with a running
/// batch writer, called through the router without a socket.
struct IngestFixture {
  let router: Router
  let writer: BatchWriter
  let ingestKey: String
  let databasePath: String

  static func with(_ body: (IngestFixture) throws -> Void) throws {
    let shop = try ShopDatabase()
    defer { shop.remove() }
    let writer = try BatchWriter(database: shop.database)
    writer.start()
    defer { writer.stop() }
    let handler = IngestHandler(
      writer: writer, decoder: EventBatchDecoder(), metrics: IngestMetrics(),
      clock: { Int64(Date().timeIntervalSince1970 * 1000) })
    try body(
      IngestFixture(
        router: Router(routes: [handler.route], keys: try shop.keyDirectory()), writer: writer,
        ingestKey: shop.keys.ingestKey, databasePath: shop.databasePath))
  }

  /// Posts `body` as JSON with the ingest key; waits for a deferred answer.
  func post(_ body: [UInt8], headers: [String: String] = [:]) -> Response {
    var headers = headers
    headers["Authorization"] = "Bearer \(ingestKey)"
    headers["Content-Type"] = "application/json"
    let request = Request(
      head: RequestHead(method: "POST", path: "/v1/events", headers: headers), body: body)
    return router.handle(request).response()
  }

  /// The update ids of stored events, in the order stored, read afresh.
  func storedUpdateIds() throws -> [String] {
    let statement = try Database(path: databasePath).statement(
      "SELECT update_id FROM events ORDER BY seq")
    var ids: [String] = []
    while try statement.step() { ids.append(statement.string(0)) }
    return ids
  }
}
