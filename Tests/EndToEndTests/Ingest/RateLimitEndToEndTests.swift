import Foundation
import Testing
import UptakeTestSupport

@Suite("uptaked rate limits", .timeLimit(.minutes(1)))
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
