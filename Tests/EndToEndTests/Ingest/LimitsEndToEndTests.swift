import Foundation
import Testing
import UptakeTestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The daemon's limits, each probed against the real binary: what passes the
/// limit is refused with the right status, the daemon holds no more than the
/// limit while refusing it, and it goes on serving.
@Suite("uptaked limits: bodies, gzip, nesting, connections", .timeLimit(.minutes(3)))
struct LimitsEndToEndTests {
  @Test("a gzip bomb is refused with 413 and the daemon's peak memory grows by less than 32 MiB")
  func gzipBomb() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient(timeout: 60)
    // Warm every path the bomb will take, so the peak measured after it is
    // the bomb's and not the first request's.
    let warmup = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey,
      Data(try gzip(Array(batchJSON([eventJSON()]).utf8))),
      headers: ["Content-Encoding": "gzip"])
    try #require(warmup.status == 200)
    let peakBefore = try peakResidentBytes(fixture.daemon.process.processIdentifier)
    let inflatedMiB =
      ProcessInfo.processInfo.environment["UPTAKE_TEST_BOMB_MIB"].flatMap { Int($0) } ?? 256
    let bomb = Data(try gzippedZeros(count: inflatedMiB << 20))
    try #require(bomb.count < 1 << 20, "the bomb itself fits the 1 MiB body limit")

    let response = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, bomb,
      headers: ["Content-Encoding": "gzip"])

    let peakAfter = try peakResidentBytes(fixture.daemon.process.processIdentifier)
    print(
      "gzip bomb: \(bomb.count) bytes inflating to \(inflatedMiB) MiB; daemon peak RSS"
        + " \(peakBefore >> 20) -> \(peakAfter >> 20) MiB")
    #expect(response.status == 413)
    #expect(ErrorBody(response.body)?.code == "payload_too_large")
    #expect(peakAfter - peakBefore < 32 << 20, "holds at most the 8 MiB cap and a few copies")
    #expect(try client.get(fixture.daemon.url("/healthz")).status == 200)
  }

  @Test(
    "values no one reads are skipped, not built: an ignored array of 4M zeros costs under 32 MiB"
  )
  func ignoredValuesAreNotBuilt() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient(timeout: 60)
    let event = eventJSON()
    // The same array under an ignored top-level key, under an unknown key
    // of an event, in a known field and as an event of its own: each just
    // under the 8 MiB decoded limit, 8 KB or so of gzip.
    let zeros = "[" + String(repeating: "0,", count: 4_000_000 - 1) + "0]"
    let bodies = [
      "{\"padding\": \(zeros), \"events\": [\(event)]}",
      "{\"events\": [\(event.dropLast()), \"padding\": \(zeros)}]}",
      "{\"events\": [\(event), \(zeros)]}",
      "{\"events\": [{\"id\": \(zeros)}]}",
    ]
    let warmup = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey,
      Data(try gzip(Array(batchJSON([eventJSON()]).utf8))),
      headers: ["Content-Encoding": "gzip"])
    try #require(warmup.status == 200)
    let peakBefore = try peakResidentBytes(fixture.daemon.process.processIdentifier)
    var statuses: [Int] = []
    for body in bodies {
      let compressed = Data(try gzip(Array(body.utf8)))
      try #require(compressed.count < 64 << 10)
      statuses.append(
        try client.postJSON(
          fixture.daemon.url("/v1/events"), key: fixture.ingestKey, compressed,
          headers: ["Content-Encoding": "gzip"]
        ).status)
    }
    let peakAfter = try peakResidentBytes(fixture.daemon.process.processIdentifier)
    print("ignored values: daemon peak RSS \(peakBefore >> 20) -> \(peakAfter >> 20) MiB")
    // The first stores its event; the others hold an event past the
    // per-event size limit, which refuses the batch.
    #expect(statuses == [200, 413, 413, 413])
    #expect(peakAfter - peakBefore < 32 << 20, "holds the 8 MiB body, not a tree of it")
  }

  @Test("a body nested far past the depth limit is a 400, within it a 200; the daemon serves on")
  func nesting() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let url = fixture.daemon.url("/v1/events")
    let deep = 100_000
    let deepArray = String(repeating: "[", count: deep) + String(repeating: "]", count: deep)
    let deepObject =
      String(repeating: "{\"a\":", count: deep) + "1" + String(repeating: "}", count: deep)
    let withinLimit = String(repeating: "[", count: 20) + String(repeating: "]", count: 20)

    for body in [
      "{\"events\":[\(deepArray)]}",
      "{\"events\":[" + eventJSON().dropLast() + ",\"extra\":\(deepObject)}]}",
      "{\"other\":\(deepArray),\"events\":[\(eventJSON())]}",
    ] {
      let response = try client.postJSON(url, key: fixture.ingestKey, body)
      #expect(response.status == 400)
      #expect(ErrorBody(response.body)?.message.contains("nested deeper than 32") == true)
    }
    let fine = try client.postJSON(
      url, key: fixture.ingestKey,
      "{\"events\":[" + eventJSON().dropLast() + ",\"extra\":\(withinLimit)}]}")
    #expect(fine.text == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)
  }

  @Test("--max-body-bytes, --max-event-bytes and --max-json-depth move the limits")
  func flagsMoveTheLimits() throws {
    let fixture = try DaemonFixture(arguments: [
      "--max-body-bytes", "4000", "--max-event-bytes", "200", "--max-json-depth", "4",
    ])
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let url = fixture.daemon.url("/v1/events")
    let small = batchJSON([eventJSON(id: "a")])
    let nested = "{\"events\":[" + eventJSON().dropLast() + ",\"x\":[[1]]}]}"
    let longEvent = eventJSON(updateId: String(repeating: "u", count: 60)).dropLast()
    let padded = batchJSON([longEvent + ",\"pad\":\"\(String(repeating: "p", count: 200))\"}"])
    let large = batchJSON((0..<60).map { eventJSON(id: "large-\($0)") })
    try #require(large.utf8.count > 4000)

    #expect(try client.postJSON(url, key: fixture.ingestKey, small).status == 200)
    #expect(try client.postJSON(url, key: fixture.ingestKey, nested).status == 400)
    #expect(try client.postJSON(url, key: fixture.ingestKey, padded).status == 413)
    #expect(try client.postJSON(url, key: fixture.ingestKey, large).status == 413)
  }

  @Test("--connection-timeout closes a connection that stalls mid-header")
  func connectionTimeout() throws {
    let fixture = try DaemonFixture(arguments: ["--connection-timeout", "1"])
    defer { fixture.tearDown() }
    let connection = try RawConnection(port: fixture.daemon.port)
    let started = Date()

    connection.send("GET /healthz HTTP/1.1\r\nHost: uptake\r\n")
    let (_, closed) = connection.readUntilClosed(timeout: 10)

    let seconds = Date().timeIntervalSince(started)
    #expect(closed, "the daemon closed the stalled connection")
    #expect(seconds >= 0.9 && seconds < 5, "after about a second, not \(seconds) s")
  }

  @Test("--max-connections: past the limit no request is answered until a connection closes")
  func totalConnectionLimit() throws {
    let fixture = try DaemonFixture(arguments: ["--max-connections", "4", "--threads", "1"])
    defer { fixture.tearDown() }
    var held = try (0..<4).map { _ in try RawConnection(port: fixture.daemon.port) }
    for connection in held { connection.send("GET /healthz HTTP/1.1\r\nHost: uptake\r\n") }
    Thread.sleep(forTimeInterval: 0.3)

    let refused = try? answerToHealthCheck(port: fixture.daemon.port, timeout: 1.5)
    held.removeAll()
    Thread.sleep(forTimeInterval: 0.3)
    let served = try answerToHealthCheck(port: fixture.daemon.port, timeout: 5)

    #expect(refused == nil, "no answer while four connections are open")
    #expect(served == 200)
  }

  @Test("--max-connections-per-ip closes the connection past the limit at once")
  func perAddressConnectionLimit() throws {
    let fixture = try DaemonFixture(arguments: ["--max-connections-per-ip", "3"])
    defer { fixture.tearDown() }
    var held = try (0..<3).map { _ in try RawConnection(port: fixture.daemon.port) }
    for connection in held { connection.send("GET /healthz HTTP/1.1\r\nHost: uptake\r\n") }
    Thread.sleep(forTimeInterval: 0.3)

    let extra = try RawConnection(port: fixture.daemon.port)
    extra.send("GET /healthz HTTP/1.1\r\nHost: uptake\r\n\r\n")
    let (text, closed) = extra.readUntilClosed(timeout: 5)
    held.removeAll()
    Thread.sleep(forTimeInterval: 0.3)

    #expect(closed && text.isEmpty, "closed without an answer, got \(text)")
    #expect(try answerToHealthCheck(port: fixture.daemon.port, timeout: 5) == 200)
  }

  @Test("headers over --connection-memory-bytes are refused; the daemon serves on")
  func connectionMemoryLimit() throws {
    let request =
      "GET /healthz HTTP/1.1\r\nHost: uptake\r\nX-Filler: \(String(repeating: "f", count: 48 * 1024))"
      + "\r\nConnection: close\r\n\r\n"
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let roomy = try DaemonFixture(arguments: ["--connection-memory-bytes", "131072"])
    defer { roomy.tearDown() }

    let refused = try RawConnection(port: fixture.daemon.port)
    refused.send(request)
    let refusal = refused.readResponse(timeout: 5)
    let accepted = try RawConnection(port: roomy.daemon.port)
    accepted.send(request)
    let answer = accepted.readResponse(timeout: 5)

    #expect(
      refusal == nil || [413, 431].contains(refusal?.status ?? 0),
      "refused or closed, got \(refusal?.head ?? "nothing")")
    #expect(try answerToHealthCheck(port: fixture.daemon.port, timeout: 5) == 200)
    #expect(answer?.status == 200, "the same headers fit 128 KiB")
    #expect(
      fixture.daemon.log.contains(#"level=warning msg="libmicrohttpd" message="#),
      "libmicrohttpd's complaint is a key=value line too")
  }
}

/// The status of `GET /healthz` on a new connection, or nil when no answer
/// comes within `timeout`.
func answerToHealthCheck(port: Int, timeout: TimeInterval) throws -> Int? {
  let connection = try RawConnection(port: port)
  connection.send("GET /healthz HTTP/1.1\r\nHost: uptake\r\nConnection: close\r\n\r\n")
  return connection.readResponse(timeout: timeout)?.status
}

/// The highest resident memory the process has had (VmHWM), in bytes.
func peakResidentBytes(_ pid: Int32) throws -> Int {
  let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
  let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
  let kibibytes = try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
  return kibibytes * 1024
}

@Suite("uptaked report bounds: rows, installs and time", .timeLimit(.minutes(3)))
struct ReportBoundsEndToEndTests {
  @Test("a report of more rows than --max-report-rows is answered 413, before it is built whole")
  func reportRowsCapped() throws {
    let fixture = try DaemonFixture(arguments: ["--max-report-rows", "5"])
    defer { fixture.tearDown() }
    let client = HTTPClient()
    // Six updates and six versions: six rows by either, folded or not.
    let stored = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey,
      batchJSON(
        (0..<6).map { eventJSON(updateId: "u\($0)", appVersion: "1.0.\($0)", installId: "i\($0)") }
      ))
    try #require(stored.status == 200)

    for path in [
      "/v1/updates", "/v1/report?groupBy=updateId", "/v1/report?groupBy=date,appVersion",
      "/v1/report?groupBy=updateId,action&granularity=hour", "/v1/adoption",
      "/v1/updates?format=csv",
    ] {
      let report = try client.get(fixture.daemon.url(path), key: fixture.readKey)
      #expect(report.status == 413, "\(path): \(report.text)")
      #expect(ErrorBody(report.body)?.code == "payload_too_large", "\(path)")
      #expect(ErrorBody(report.body)?.message.contains("more than 5 rows") == true, "\(path)")
    }
    // Within the cap, the same reports answer.
    for path in ["/v1/report?groupBy=action", "/v1/report?groupBy=date", "/v1/updates/u1"] {
      #expect(
        try client.get(fixture.daemon.url(path), key: fixture.readKey).status == 200, "\(path)")
    }
    #expect(!fixture.daemon.log.contains("level=error"), "a refused report is not an error")
  }

  @Test("a report holding more installs than --max-report-installs is answered 413")
  func reportInstallsCapped() throws {
    let fixture = try DaemonFixture(arguments: ["--max-report-installs", "5"])
    defer { fixture.tearDown() }
    let client = HTTPClient()
    // Six installs see u1's prompt, five see u2's.
    let stored = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey,
      batchJSON(
        (0..<6).map { eventJSON(updateId: "u1", installId: "i\($0)") }
          + (0..<5).map { eventJSON(updateId: "u2", installId: "i\($0)") }))
    try #require(stored.status == 200)

    for path in ["/v1/updates/u1", "/v1/updates/u1/funnel"] {
      let report = try client.get(fixture.daemon.url(path), key: fixture.readKey)
      #expect(report.status == 413, "\(path): \(report.text)")
      #expect(
        ErrorBody(report.body)?.message.contains("more than 5 distinct installs") == true,
        "\(path)")
    }
    for path in ["/v1/updates/u2", "/v1/updates/u2/funnel"] {
      #expect(
        try client.get(fixture.daemon.url(path), key: fixture.readKey).status == 200, "\(path)")
    }
  }

  @Test("a report past --report-timeout is stopped and answered 503; ingest goes on")
  func reportStopped() throws {
    let fixture = try DaemonFixture(arguments: ["--report-timeout", "0.000001"])
    defer { fixture.tearDown() }
    let client = HTTPClient()
    // Enough events that the report runs past SQLite's first progress check.
    let stored = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey,
      batchJSON((0..<1000).map { eventJSON(appVersion: "1.0.\($0)") }))

    let report = try client.get(
      fixture.daemon.url("/v1/report?groupBy=date,appVersion"), key: fixture.readKey)

    #expect(stored.status == 200)
    #expect(report.status == 503)
    #expect(report.header("Retry-After") != nil)
    #expect(ErrorBody(report.body)?.message.contains("time limit") == true, "\(report.text)")
    #expect(!fixture.daemon.log.contains("level=error"), "a stopped report is not an error")
  }
}
