import Foundation
import Testing
import UptakeTestSupport

@Suite("uptaked rate limits", .timeLimit(.minutes(3)))
struct RateLimitEndToEndTests {
  static let limited =
    #"{"error":{"code":"rate_limited","message":"too many requests; retry later"}}"#

  @Test("off by default: 30 posts in a row are all stored")
  func offByDefault() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let statuses = try (0..<30).map { number in
      try client.postJSON(
        fixture.daemon.url("/v1/events"), key: fixture.ingestKey,
        batchJSON([eventJSON(id: "e\(number)")])
      ).status
    }
    #expect(statuses == Array(repeating: 200, count: 30))
  }

  @Test(
    "per key: past the burst, 429 with Retry-After and nothing stored; the key's bucket refills")
  func perKey() throws {
    let fixture = try DaemonFixture(arguments: ["--rate-limit-per-key", "1:3"])
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let url = fixture.daemon.url("/v1/events")

    let responses = try (0..<6).map { number in
      try client.postJSON(url, key: fixture.ingestKey, batchJSON([eventJSON(id: "k\(number)")]))
    }

    #expect(responses.map(\.status) == [200, 200, 200, 429, 429, 429])
    for refused in responses.dropFirst(3) {
      #expect(refused.text == Self.limited)
      #expect(refused.header("Retry-After") == "1")
    }
    // The read key has a bucket of its own; the probes have none.
    let stored = try client.get(fixture.daemon.url("/v1/updates"), key: fixture.readKey)
    #expect(stored.status == 200)
    #expect(
      stored.text.contains(#""impression":3"#), "only the three accepted events: \(stored.text)")
    for _ in 0..<10 { #expect(try client.get(fixture.daemon.url("/healthz")).status == 200) }

    Thread.sleep(forTimeInterval: 1.1)
    let later = try client.postJSON(url, key: fixture.ingestKey, batchJSON([eventJSON(id: "k3")]))
    #expect(later.status == 200, "a token came back after a second")
  }

  @Test("per address: every key from one address shares one bucket")
  func perAddress() throws {
    let fixture = try DaemonFixture(arguments: ["--rate-limit-per-ip", "0.5:2"])
    defer { fixture.tearDown() }
    let client = HTTPClient()

    let first = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON([eventJSON()]))
    let second = try client.get(fixture.daemon.url("/v1/updates"), key: fixture.readKey)
    let third = try client.get(fixture.daemon.url("/v1/updates"), key: fixture.readKey)

    let statuses: [Int] = [first.status, second.status, third.status]
    #expect(statuses == [200, 200, 429])
    #expect(third.text == Self.limited)
    #expect(third.header("Retry-After") == "2", "one token takes two seconds at 0.5/s")
    #expect(try client.get(fixture.daemon.url("/metrics")).status == 200)
  }

  @Test(
    "--trusted-proxy: behind it each X-Forwarded-For client has its own bucket; without it, one",
    arguments: [
      (["--trusted-proxy", "127.0.0.1/32"], [200, 429, 200, 200, 429]),
      (
        ["--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "::1/128"], [200, 429, 429, 429, 429]
      ),
      ([], [200, 429, 429, 429, 429]),
    ])
  func forwardedFor(trust: [String], statuses: [Int]) throws {
    let fixture = try DaemonFixture(arguments: ["--rate-limit-per-ip", "0.1:1"] + trust)
    defer { fixture.tearDown() }
    let client = HTTPClient()
    func get(forwardedFor: String) throws -> Int {
      try client.get(
        fixture.daemon.url("/v1/updates"), key: fixture.readKey,
        headers: ["X-Forwarded-For": forwardedFor]
      ).status
    }

    let seen = [
      try get(forwardedFor: "203.0.113.7"),
      try get(forwardedFor: "203.0.113.7"),
      // Another client behind the same proxy, with a proxy hop of its own
      // that the trusted list leaves out: the right-most untrusted address
      // is the client.
      try get(forwardedFor: "198.51.100.9, 127.0.0.1"),
      // A header that cannot be read where it matters counts against the
      // peer, the proxy itself, never against the address it names.
      try get(forwardedFor: "203.0.113.7, not-an-address"),
      try get(forwardedFor: "198.51.100.77:4711"),
    ]

    #expect(seen == statuses, "\(trust)")
  }

  @Test("several X-Forwarded-For lines are one list, read from the right")
  func forwardedForLines() throws {
    let fixture = try DaemonFixture(arguments: [
      "--rate-limit-per-ip", "0.1:1", "--trusted-proxy", "127.0.0.0/8",
    ])
    defer { fixture.tearDown() }
    func get(_ forwardedFor: [String]) throws -> Int? {
      let lines =
        ["GET /v1/updates HTTP/1.1", "Host: x", "Authorization: Bearer \(fixture.readKey)"]
        + forwardedFor.map { "X-Forwarded-For: \($0)" } + ["Connection: close"]
      return try RawConnection.exchange(
        port: fixture.daemon.port, lines.joined(separator: "\r\n") + "\r\n\r\n")?.status
    }

    // A second proxy added a line of its own: the client is 203.0.113.7.
    #expect(try get(["203.0.113.7", "127.0.0.5"]) == 200)
    #expect(try get(["203.0.113.7"]) == 429, "the same client, the same bucket")
    #expect(try get(["198.51.100.9"]) == 200)
  }

  @Test("a malformed rate is a usage error, exit 64")
  func badFlag() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let result = try run(
      BuiltProgram.path("uptaked"),
      ["--db", scratch.databasePath, "--listen", "127.0.0.1:0", "--rate-limit-per-key", "fast"])
    #expect(result.status == 64)
  }
}
