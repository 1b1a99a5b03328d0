import Foundation
import Testing
import UptakeTestSupport

@Suite("uptaked health, readiness and metrics", .timeLimit(.minutes(3)))
struct OperationsEndToEndTests {
  @Test("the fold thread runs nicer than the request threads, which keep the process's priority")
  func foldYieldsToRequests() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    try fixture.post([eventJSON(id: "1", installId: "i1")])
    let pid = fixture.daemon.process.processIdentifier
    let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
    // Field 19 of a task's stat is its nice value; the fields after the
    // name, in parentheses, start at 3.
    let nices = try tasks.map { task in
      let stat = try String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8)
      let fields = stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(
        separator: " ")
      return Int(fields[19 - 3])!
    }
    let base = nices.min()!
    #expect(nices.filter { $0 == base + 5 }.count == 1, "\(nices)")
    #expect(nices.filter { $0 == base }.count == nices.count - 1, "\(nices)")
  }

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
