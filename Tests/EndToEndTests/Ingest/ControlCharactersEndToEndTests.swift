import Foundation
import Testing
import UptakeTestSupport

/// Requests carrying NUL or another control character where Uptake reads:
/// in the path once percent-decoded, in a query argument, in a header. Each
/// is refused whole with a 400, before routing and before the key is looked
/// at, so a key followed by junk never authenticates and `a%00b` is never
/// read as `a`. Sent over a bare socket: URLSession refuses to send them.
@Suite("uptaked refuses control characters", .timeLimit(.minutes(3)))
struct ControlCharactersEndToEndTests {
  private static func get(
    _ fixture: DaemonFixture, _ target: String, headers: [String] = []
  ) throws -> (status: Int, head: String, body: String)? {
    let lines = ["GET \(target) HTTP/1.1", "Host: x", "Connection: close"] + headers
    return try RawConnection.exchange(
      port: fixture.daemon.port, lines.joined(separator: "\r\n") + "\r\n\r\n")
  }

  private static func expectRefused(
    _ answer: (status: Int, head: String, body: String)?, _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(answer?.status == 400, "\(what)", sourceLocation: sourceLocation)
    let error = answer.flatMap { ErrorBody(Data($0.body.utf8)) }
    #expect(
      error?.code == "bad_request", "\(what): \(answer?.body ?? "")", sourceLocation: sourceLocation
    )
  }

  @Test("a control character in the path, percent-encoded or raw, is a 400 on any route")
  func inPath() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let key = "Authorization: Bearer \(fixture.readKey)"
    #expect(try Self.get(fixture, "/v1/updates/a", headers: [key])?.status == 200)
    for target in [
      "/v1/updates/a%00b", "/v1/updates%00", "/v1/updates/a%0Ab", "/v1/updates/a%0d%0aX",
      "/v1/updates/a%7Fb", "/v1/updates/a%1B[31m", "/v1/updates/%09", "/v1/updates\u{1}",
      "/nowhere%00", "/healthz%00",
    ] {
      Self.expectRefused(try Self.get(fixture, target, headers: [key]), target)
    }
    Self.expectRefused(try Self.get(fixture, "/v1/updates%00"), "without a key, still 400")
  }

  @Test("a control character in a query argument is a 400: installId=a%00b is not read as a")
  func inQuery() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let key = "X-Uptake-Key: \(fixture.ingestKey)"
    let check = "/v1/check?platform=ios&appVersion=2.0"
    #expect(try Self.get(fixture, check + "&installId=a", headers: [key])?.status == 200)
    for query in ["&installId=a%00b", "&locale=en%0A", "&x%00=1", "&installId=%7F"] {
      Self.expectRefused(try Self.get(fixture, check + query, headers: [key]), query)
    }
  }

  @Test("a key followed by a control character never authenticates: 400, with either header")
  func inKey() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let read = fixture.readKey
    let ingest = fixture.ingestKey
    let check = "/v1/check?platform=ios&appVersion=2.0"
    for junk in ["\u{1}", "\u{1}junk", "\u{7F}", "\u{1B}x", "\rjunk", "\u{8}"] {
      let bearer = try Self.get(
        fixture, "/v1/updates", headers: ["Authorization: Bearer \(read)\(junk)"])
      Self.expectRefused(bearer, "Authorization \(junk.debugDescription)")
      let uptakeKey = try Self.get(fixture, check, headers: ["X-Uptake-Key: \(ingest)\(junk)"])
      Self.expectRefused(uptakeKey, "X-Uptake-Key \(junk.debugDescription)")
    }
    Self.expectRefused(
      try Self.get(
        fixture, "/v1/updates", headers: ["Authorization: Bearer \(read)", "Accept: \u{1}"]),
      "in any other header too")
    // A tab is whitespace inside a header value (RFC 9110), not a control.
    let tabbed = try Self.get(
      fixture, "/v1/updates",
      headers: ["Authorization:\tBearer \(read)\t", "Accept: text/csv,\tx/y"])
    #expect(tabbed?.status == 200)
  }

  @Test("a raw NUL inside a header value never authenticates")
  func rawNULInKey() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    // libmicrohttpd 0.9.75 (Debian 12) ends a header value at a raw NUL
    // before any callback sees it, and keeps no length that would show the
    // rest; libmicrohttpd 1.0 refuses such a request itself (400). Until
    // the daemon runs on 1.0 this stays a known issue: see docs/api.md.
    let answer = try Self.get(
      fixture, "/v1/updates", headers: ["Authorization: Bearer \(fixture.readKey)\u{0}junk"])
    withKnownIssue("libmicrohttpd 0.9.75 truncates a header value at a raw NUL") {
      #expect(answer?.status != 200)
    }
  }
}
