import Foundation
import Testing
import UptakeTestSupport

/// A 200 on ingest promises the events are stored: they must survive the
/// daemon stopping, orderly or not.
@Suite("Acknowledged events survive a restart", .timeLimit(.minutes(3)))
struct DurabilityEndToEndTests {
  /// Three batches of ten events, ids `b<batch>-<n>`.
  private let batches = (0..<3).map { batch in
    batchJSON((0..<10).map { eventJSON(id: "b\(batch)-\($0)", installId: "i\($0)") })
  }

  private func postAll(_ fixture: DaemonFixture, _ client: HTTPClient) throws -> [String] {
    try batches.map {
      try client.postJSON(fixture.daemon.url("/v1/events"), key: fixture.ingestKey, $0).text
    }
  }

  private func expectStoredOnce(_ fixture: DaemonFixture, _ client: HTTPClient) throws {
    let report = try client.get(fixture.daemon.url("/v1/updates/u1"), key: fixture.readKey)
    #expect(
      report.text.contains(#""actions":{"impression":{"events":30,"installs":10}"#),
      "\(report.text)")
    let reposted = try postAll(fixture, client)
    #expect(
      reposted == Array(repeating: #"{"accepted":0,"duplicates":10,"rejected":[]}"#, count: 3))
  }

  @Test("after SIGTERM (exit 0) and a restart, reports show them and a re-post is all duplicates")
  func orderlyStop() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let answers = try postAll(fixture, client)
    #expect(answers == Array(repeating: #"{"accepted":10,"duplicates":0,"rejected":[]}"#, count: 3))

    #expect(fixture.daemon.terminate() == 0)
    try fixture.restart()

    try expectStoredOnce(fixture, HTTPClient())
  }

  @Test("after SIGKILL right after the 200s and a restart, they are all there")
  func killed() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let answers = try postAll(fixture, client)
    #expect(answers == Array(repeating: #"{"accepted":10,"duplicates":0,"rejected":[]}"#, count: 3))

    fixture.daemon.killHard()
    #expect(fixture.daemon.process.terminationReason == .uncaughtSignal)
    try fixture.restart()

    try expectStoredOnce(fixture, HTTPClient())
  }

  @Test(
    "SIGTERM while 32 clients post: every request sent answered 200 or 503, exit 0, every 200 kept"
  )
  func stopUnderLoad() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let log = LoadLog()
    let clients = DispatchGroup()
    let url = fixture.daemon.url("/v1/events")
    let key = fixture.ingestKey

    for clientNumber in 0..<32 {
      clients.enter()
      Thread.detachNewThread {
        defer { clients.leave() }
        postUntilRefused(client: clientNumber, url: url, key: key, log: log)
      }
    }
    Thread.sleep(forTimeInterval: 0.5)
    let exitStatus = fixture.daemon.terminate()
    let finished = clients.wait(timeout: .now() + 30)

    #expect(exitStatus == 0)
    #expect(finished == .success, "every client got an answer or an error")
    let summary = log.summary
    #expect(
      summary.unexpected == [],
      "only 200, 503, or a connection refused once the daemon stopped listening")
    #expect(summary.acknowledged.count >= 50, "some batches were acknowledged before the stop")
    // Straight from the file the daemon left: every acknowledged event, and
    // the log folded into it.
    let stored = Set(
      try sqlite3(fixture.databasePath, "SELECT client_id FROM events").split(separator: "\n")
        .map(String.init))
    #expect(summary.acknowledged.allSatisfy { stored.contains($0) })
    let walAttributes = try? FileManager.default.attributesOfItem(
      atPath: fixture.databasePath + "-wal")
    #expect((walAttributes?[.size] as? Int ?? 0) == 0, "the WAL is checkpointed at exit")
    print(
      "SIGTERM under load: \(summary.acknowledged.count) events acknowledged and stored,"
        + " \(summary.refusals) refused with 503, \(summary.connectionErrors) connections refused")

    try fixture.restart()
    let client = HTTPClient()
    let acknowledged = summary.acknowledged
    for start in stride(from: 0, to: acknowledged.count, by: 1000) {
      let ids = acknowledged[start..<min(start + 1000, acknowledged.count)]
      let response = try client.postJSON(
        fixture.daemon.url("/v1/events"), key: key, batchJSON(ids.map { eventJSON(id: $0) }))
      #expect(
        response.text == #"{"accepted":0,"duplicates":\#(ids.count),"rejected":[]}"#,
        "every acknowledged event is stored")
    }
  }
}

/// One client: posts batches of 50 new events until the daemon refuses or
/// the connection fails.
private func postUntilRefused(client clientNumber: Int, url: URL, key: String, log: LoadLog) {
  let client = HTTPClient(timeout: 20)
  for batchNumber in 0... {
    let ids = (0..<50).map { "c\(clientNumber)-\(batchNumber)-\($0)" }
    do {
      let response = try client.postJSON(url, key: key, batchJSON(ids.map { eventJSON(id: $0) }))
      switch response.status {
      case 200 where response.text == #"{"accepted":50,"duplicates":0,"rejected":[]}"#:
        log.acknowledge(ids)
      case 503:
        log.refused()
        return
      default:
        log.unexpected("\(response.status) \(response.text)")
        return
      }
    } catch let error as URLError where error.code == .timedOut {
      log.unexpected("timed out: no answer")
      return
    } catch let error as URLError where error.code == .cannotConnectToHost {
      // The daemon stopped listening: this request was never in flight.
      log.connectionFailed()
      return
    } catch {
      log.unexpected("a request in flight got no answer: \(error)")
      return
    }
  }
}

/// What the clients saw, from all their threads.
private final class LoadLog: @unchecked Sendable {
  struct Summary {
    var acknowledged: [String] = []
    var refusals = 0
    var connectionErrors = 0
    var unexpected: [String] = []
  }

  private let lock = NSLock()
  private var state = Summary()

  func acknowledge(_ ids: [String]) { lock.withLock { state.acknowledged += ids } }
  func refused() { lock.withLock { state.refusals += 1 } }
  func connectionFailed() { lock.withLock { state.connectionErrors += 1 } }
  func unexpected(_ what: String) { lock.withLock { state.unexpected.append(what) } }

  var summary: Summary { lock.withLock { state } }
}
