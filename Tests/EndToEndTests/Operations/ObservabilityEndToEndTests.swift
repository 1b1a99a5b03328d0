import Foundation
import Testing
import UptakeTestSupport

@Suite("uptaked metrics and logs", .timeLimit(.minutes(3)))
struct ObservabilityEndToEndTests {
  @Test("/metrics: requests by route and status, events by outcome, commit histograms, WAL size")
  func metrics() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let url = fixture.daemon.url("/v1/events")
    _ = try client.postJSON(
      url, key: fixture.ingestKey,
      batchJSON([
        eventJSON(id: "a"), eventJSON(id: "b"), eventJSON(id: "a"), eventJSON(action: "x"),
      ]))
    _ = try client.postJSON(url, key: fixture.ingestKey, batchJSON([eventJSON(id: "c")]))
    _ = try client.postJSON(url, key: nil, batchJSON([eventJSON()]))
    _ = try client.get(fixture.daemon.url("/v1/updates"), key: fixture.readKey)

    let text = try client.get(fixture.daemon.url("/metrics")).text
    let samples = Dictionary(
      text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
        let split = line.lastIndex(of: " ")!
        return (String(line[..<split]), String(line[line.index(after: split)...]))
      }, uniquingKeysWith: { first, _ in first })

    #expect(
      samples[#"uptake_http_requests_total{method="POST",route="/v1/events",status="200"}"#] == "2")
    #expect(
      samples[#"uptake_http_requests_total{method="POST",route="/v1/events",status="401"}"#] == "1")
    #expect(
      samples[#"uptake_http_requests_total{method="GET",route="/v1/updates",status="200"}"#] == "1")
    #expect(samples["uptake_events_accepted_total"] == "3")
    #expect(samples["uptake_events_duplicate_total"] == "1")
    #expect(samples[#"uptake_events_rejected_total{field="action"}"#] == "1")
    #expect(samples[#"uptake_commit_events_bucket{le="1"}"#] == "1")
    #expect(samples[#"uptake_commit_events_bucket{le="10"}"#] == "2")
    #expect(samples[#"uptake_commit_events_bucket{le="+Inf"}"#] == "2")
    #expect(samples["uptake_commit_events_sum"] == "4")
    #expect(samples["uptake_commit_seconds_count"] == "2")
    #expect(samples["uptake_commit_failures_total"] == "0")
    #expect(samples["uptake_ingest_queue_events"] == "0")
    // The three stored events, unless the fold took them already (it
    // folds whatever is stored once ingest pauses for 0.2 s).
    #expect(
      (samples["uptake_unfolded_events"].flatMap { Int($0) }).map { (0...3).contains($0) } == true)
    #expect((samples["uptake_wal_bytes"].flatMap { Int($0) } ?? 0) > 0)
    #expect(text.contains("# TYPE uptake_commit_seconds histogram\n"))
  }

  @Test("--log-level debug: one key=value line per request, and no key anywhere in the log")
  func requestLogsHoldNoKeys() throws {
    let fixture = try DaemonFixture(arguments: ["--log-level", "debug"])
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let guessedKey = "upi_" + String(repeating: "G", count: 32)
    _ = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON([eventJSON()]))
    _ = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: nil, batchJSON([eventJSON()]),
      headers: ["X-Uptake-Key": fixture.ingestKey])
    _ = try client.get(fixture.daemon.url("/v1/updates/\(fixture.readKey)"), key: fixture.readKey)
    _ = try client.get(
      fixture.daemon.url("/v1/report?key=\(fixture.readKey)"), key: fixture.readKey)
    _ = try client.get(fixture.daemon.url("/v1/updates"), key: guessedKey)
    _ = try client.get(fixture.daemon.url("/v1/\(fixture.ingestKey)"))
    #expect(fixture.daemon.terminate() == 0)

    let log = fixture.daemon.log
    for secret in [fixture.ingestKey, fixture.readKey, guessedKey] {
      #expect(!log.contains(secret))
      #expect(!log.contains(String(secret.dropFirst(4).prefix(12))), "not even part of a key")
    }
    let requestLines = log.split(separator: "\n").filter { $0.contains(#"msg="request""#) }
    #expect(requestLines.count == 6)
    let keyValue = try Regex(
      #"^ts=\S+ level=debug msg="request" method=[A-Z]+ route=\S+ status=\d{3} ms=[0-9.]+$"#)
    for line in requestLines {
      #expect(line.wholeMatch(of: keyValue) != nil, "\(line)")
    }
  }

  @Test("at the default level no request lines, but a 500 from a report is logged as an error")
  func errorsAlwaysLogged() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    _ = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON([eventJSON()]))
    // A damaged database: a table the reports read is gone.
    _ = try sqlite3(fixture.databasePath + "-rollups", "DROP TABLE daily_counts")

    let report = try client.get(fixture.daemon.url("/v1/updates"), key: fixture.readKey)
    Thread.sleep(forTimeInterval: 0.2)

    #expect(report.status == 500)
    #expect(report.text == #"{"error":{"code":"internal","message":"internal error"}}"#)
    let log = fixture.daemon.log
    #expect(log.contains(#"level=error msg="report failed" route=/v1/updates error="#))
    #expect(log.contains("daily_counts"), "SQLite's message says what failed")
    #expect(log.contains(#"level=error msg="request" method=GET route=/v1/updates status=500"#))
    #expect(!log.contains("status=200"), "requests that went well stay out of an info log")
  }

  @Test("a failing report logs its route, never the path as sent; no client byte forges a line")
  func failedReportLogsTheRoute() throws {
    let fixture = try DaemonFixture(arguments: ["--log-level", "debug"])
    defer { fixture.tearDown() }
    _ = try sqlite3(fixture.databasePath + "-rollups", "DROP TABLE daily_counts")
    let updateId = "client.chosen:" + String(repeating: "x", count: 50)
    let port = fixture.daemon.port
    let key = "Authorization: Bearer \(fixture.readKey)"
    let forged = #"%0Ats=0 level=error msg="forged"%0D"#
    for target in [
      "/v1/updates/\(updateId)", "/v1/updates/a\(forged)", "/v1/updates/\(forged)/funnel",
      "/v1/updates/a%1B[2J%7F", "/v1/report?groupBy=\(forged)",
    ] {
      let answer = try RawConnection.exchange(
        port: port, "GET \(target) HTTP/1.1\r\nHost: x\r\n\(key)\r\nConnection: close\r\n\r\n")
      #expect(answer != nil, "\(target)")
    }
    Thread.sleep(forTimeInterval: 0.2)
    #expect(fixture.daemon.terminate() == 0)

    let log = fixture.daemon.log
    let failures = log.split(separator: "\n").filter { $0.contains(#"msg="report failed""#) }
    #expect(failures.count == 1, "only the well-formed path reached the report: \(failures)")
    #expect(failures.first?.contains(" route=/v1/updates/{updateId} ") == true)
    #expect(!log.contains("client.chosen"), "the update id as sent stays out of the log")
    #expect(!log.contains("forged"))
    let controls = log.unicodeScalars.filter { $0 != "\n" && ($0.value < 0x20 || $0.value == 0x7F) }
    #expect(controls.isEmpty, "raw control bytes in the log: \(controls.map(\.value))")
    for line in log.split(separator: "\n") {
      #expect(line.hasPrefix("ts="), "every line is one of the daemon's: \(line)")
    }
  }
}
