import Foundation
import Testing
import UptakeTestSupport

@Suite("uptaked health, readiness and metrics", .timeLimit(.minutes(3)))
struct OperationsEndToEndTests {
  @Test("/healthz and /readyz answer 200 without a key")
  func probes() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()

    let health = try client.get(fixture.daemon.url("/healthz"))
    let ready = try client.get(fixture.daemon.url("/readyz"))

    #expect(health.status == 200)
    #expect(ready.status == 200)
  }

  @Test("/metrics counts stored and duplicate events in Prometheus text format")
  func metrics() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let body = batchJSON([eventJSON(id: "m1"), eventJSON(id: "m2"), eventJSON(id: "m1")])
    _ = try client.postJSON(fixture.daemon.url("/v1/events"), key: fixture.ingestKey, body)

    let metrics = try client.get(fixture.daemon.url("/metrics"))

    #expect(metrics.status == 200)
    #expect(metrics.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
    let lines = Set(metrics.text.split(separator: "\n").map(String.init))
    #expect(lines.contains("uptake_events_accepted_total 2"))
    #expect(lines.contains("uptake_events_duplicate_total 1"))
    #expect(lines.contains("uptake_ready 1"))
  }
}
