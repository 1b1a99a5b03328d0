import Foundation
import Testing
import UptakeTestSupport

/// A full disk, made portable: `--max-db-size` caps the writer's file with
/// SQLite's max_page_count, which fails a commit with SQLITE_FULL exactly as
/// a full disk does. A filler table the test put in the file first stands in
/// for other files on the disk; deleting it gives the space back, as an
/// operator clearing the disk would, without restarting the daemon.
@Suite("uptaked with a full disk", .timeLimit(.minutes(3)))
struct DiskFullEndToEndTests {
  @Test(
    "a failed commit is 503 for every request in it, /readyz 503, and the daemon recovers alone")
  func fullThenFreed() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    fixture.daemon.stop()
    _ = try sqlite3(
      fixture.databasePath,
      "CREATE TABLE test_filler (b BLOB); INSERT INTO test_filler VALUES (zeroblob(3145728));")
    let fileBytes =
      try #require(Int(sqlite3(fixture.databasePath, "PRAGMA page_count").trimmed))
      * (try #require(Int(sqlite3(fixture.databasePath, "PRAGMA page_size").trimmed)))
    let capMiB = fileBytes / (1 << 20) + 1
    try fixture.restart(arguments: ["--max-db-size", String(capMiB)])
    let url = fixture.daemon.url("/v1/events")
    let key = fixture.ingestKey
    let log = FullDiskLog()

    // Eight clients post until each is refused: whole batches fail together.
    let clients = DispatchGroup()
    for clientNumber in 0..<8 {
      clients.enter()
      Thread.detachNewThread {
        defer { clients.leave() }
        postUntilRefused(url: url, key: key, prefix: "c\(clientNumber)", size: 200, log: log)
      }
    }
    #expect(clients.wait(timeout: .now() + 60) == .success)
    // Then small batches until even they fail: less than the probe's 64 KiB
    // is left, so storage stays unready until space returns.
    postUntilRefused(url: url, key: key, prefix: "small", size: 20, log: log)

    let client = HTTPClient()
    let summary = log.summary
    #expect(summary.unexpected == [], "only 200 or 503 with Retry-After")
    #expect(summary.refused.count >= 9, "every client was refused")
    #expect(summary.acknowledged.count > 0)
    #expect(try client.get(fixture.daemon.url("/readyz")).status == 503)
    Thread.sleep(forTimeInterval: 1.5)
    #expect(
      try client.get(fixture.daemon.url("/readyz")).status == 503, "no space came back by itself")
    #expect(
      try client.get(fixture.daemon.url("/metrics")).text.contains("\nuptake_ready 0\n"))
    #expect(fixture.daemon.log.contains("storage cannot take writes"), "the failure is logged")

    _ = try sqlite3(fixture.databasePath, "DELETE FROM test_filler")
    let recovered = Date()
    var ready = false
    while !ready && Date().timeIntervalSince(recovered) < 15 {
      ready = try client.get(fixture.daemon.url("/readyz")).status == 200
      if !ready { Thread.sleep(forTimeInterval: 0.1) }
    }
    print(
      "disk full: \(summary.acknowledged.count) events acknowledged, \(summary.refused.count)"
        + " requests refused; ready again \(String(format: "%.1f", Date().timeIntervalSince(recovered))) s"
        + " after space returned")
    #expect(ready, "/readyz is 200 again without any request")
    let after = try client.postJSON(url, key: key, batchJSON([eventJSON(id: "after")]))
    #expect(after.status == 200)

    #expect(fixture.daemon.terminate() == 0)
    let stored = Set(
      try sqlite3(fixture.databasePath, "SELECT client_id FROM events").split(separator: "\n")
        .map(String.init))
    let missing = summary.acknowledged.filter { !stored.contains($0) }
    let refusedButStored = summary.refused.flatMap { $0 }.filter { stored.contains($0) }
    #expect(missing.isEmpty, "every acknowledged event is stored; missing \(missing.prefix(5))")
    #expect(refusedButStored.isEmpty, "no refused event is stored: \(refusedButStored.prefix(5))")
    #expect(stored.contains("after"))
  }
}

/// Posts batches of `size` new events until one is refused.
private func postUntilRefused(url: URL, key: String, prefix: String, size: Int, log: FullDiskLog) {
  let client = HTTPClient(timeout: 20)
  for batchNumber in 0..<1000 {
    let ids = (0..<size).map { "\(prefix)-\(batchNumber)-\($0)" }
    do {
      let response = try client.postJSON(url, key: key, batchJSON(ids.map { eventJSON(id: $0) }))
      switch response.status {
      case 200 where response.text.hasPrefix("{\"accepted\":\(size),"):
        log.acknowledge(ids)
      case 503 where response.header("Retry-After") != nil:
        log.refuse(ids)
        return
      default:
        log.unexpected("\(response.status) \(response.text)")
        return
      }
    } catch {
      log.unexpected("\(error)")
      return
    }
  }
  log.unexpected("\(prefix): never refused")
}

/// What the clients saw, from all their threads.
private final class FullDiskLog: @unchecked Sendable {
  struct Summary {
    var acknowledged: [String] = []
    var refused: [[String]] = []
    var unexpected: [String] = []
  }

  private let lock = NSLock()
  private var state = Summary()

  func acknowledge(_ ids: [String]) { lock.withLock { state.acknowledged += ids } }
  func refuse(_ ids: [String]) { lock.withLock { state.refused.append(ids) } }
  func unexpected(_ what: String) { lock.withLock { state.unexpected.append(what) } }

  var summary: Summary { lock.withLock { state } }
}

extension String {
  fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
