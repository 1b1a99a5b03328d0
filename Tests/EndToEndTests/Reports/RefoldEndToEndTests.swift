import Foundation
import Testing
import UptakeTestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A migration that folds every event again (schema/0016, 0019) leaves the
/// whole database unfolded at the next start. Reports then read it all as
/// their tail: on the bench's 10.4M events the daemon reached 2.9 GiB and
/// answered nothing. Past twice the backlog cap, reports answer 503 until
/// the fold catches up.
@Suite("uptaked: reports while the fold catches up after a migration", .timeLimit(.minutes(3)))
struct RefoldEndToEndTests {
  static let events = 100_000

  @Test("reports answer 503 while a refold is far behind, then the figures they had before")
  func reportsWaitForTheRefold() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient(timeout: 60)
    for start in stride(from: 0, to: Self.events, by: 1_000) {
      let batch = (start..<start + 1_000).map { number in
        eventJSON(
          updateId: "u\(number % 7)", action: number % 5 == 0 ? "download" : "impression",
          appVersion: "2.\(number % 4).0", installId: "i\(number % 9_000)")
      }
      try #require(
        try client.postJSON(
          fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON(batch)
        )
        .status == 200)
    }
    try #require(try waitUntilFolded(fixture, client), "the first fold ends")
    let paths = ["/v1/updates", "/v1/report?groupBy=appVersion", "/v1/updates/u3/funnel"]
    let before = try paths.map { try client.get(fixture.daemon.url($0), key: fixture.readKey) }
    for answer in before { try #require(answer.status == 200, "\(answer.text)") }

    fixture.stop()
    // What a migration that asks for a refold leaves (RollupsFile.refoldName).
    _ = try sqlite3(
      fixture.databasePath,
      "INSERT OR REPLACE INTO store_state (name, value) VALUES ('rollups_refold', 1)")
    // A cap of 1,000: reports read at most 2 × 1,000 + a transaction (20,000).
    try fixture.restart(arguments: ["--max-unfolded-events", "1000"])

    let during = try client.get(fixture.daemon.url("/v1/updates"), key: fixture.readKey)
    #expect(during.status == 503, "\(during.text)")
    #expect(during.header("Retry-After") == "10")
    #expect(
      ErrorBody(during.body)?.message.contains("not folded into the report aggregates yet") == true,
      "\(during.text)")

    try #require(try waitUntilFolded(fixture, client), "the refold ends")
    for (path, old) in zip(paths, before) {
      let again = try client.get(fixture.daemon.url(path), key: fixture.readKey)
      #expect(again.status == 200, "\(path): \(again.text)")
      #expect(again.body == old.body, "\(path): the refold's figures are the first fold's")
    }
  }

  /// Waits up to a minute for /metrics to show no unfolded event.
  private func waitUntilFolded(_ fixture: DaemonFixture, _ client: HTTPClient) throws -> Bool {
    for _ in 0..<600 {
      let metrics = try client.get(fixture.daemon.url("/metrics")).text
      if metrics.split(separator: "\n").contains("uptake_unfolded_events 0") { return true }
      Thread.sleep(forTimeInterval: 0.1)
    }
    return false
  }
}
