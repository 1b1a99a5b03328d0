import Foundation
import Testing
import UptakeTestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A slow reader pins its answer in the daemon until it has read it; past
/// --max-answer-backlog such answers, reports are refused with 503 until
/// they drain (issue 25: ten slow readers of a 19 MB CSV pinned 345 MB).
@Suite("uptaked: answers waiting for slow readers are bounded", .timeLimit(.minutes(3)))
struct AnswerBacklogEndToEndTests {
  @Test("while a slow reader holds a large answer past the cap, reports get 503; then 200")
  func slowReaderHoldsTheCap() throws {
    let fixture = try DaemonFixture(arguments: ["--max-answer-backlog", "1024"])
    defer { fixture.tearDown() }
    let client = HTTPClient(timeout: 60)
    try postWideEvents(fixture, client)

    let reader = try slowReader(fixture)
    Thread.sleep(forTimeInterval: 0.5)

    let refused = try client.get(fixture.daemon.url("/v1/updates"), key: fixture.readKey)
    #expect(refused.status == 503, "\(refused.text)")
    #expect(ErrorBody(refused.body)?.message.contains("slow readers") == true)
    #expect(refused.header("Retry-After") != nil)
    #expect(
      try client.postJSON(
        fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON([eventJSON()])
      ).status == 200, "ingest goes on")

    let (text, closed) = reader.readUntilClosed(timeout: 30)
    #expect(closed && text.contains("u31-"), "the slow reader gets its whole answer")
    var status = 0
    for _ in 0..<50 where status != 200 {
      status = try client.get(fixture.daemon.url("/v1/updates"), key: fixture.readKey).status
      if status != 200 { Thread.sleep(forTimeInterval: 0.1) }
    }
    #expect(status == 200, "reports answer again once the answer is sent")
  }

  @Test("ten slow readers of a large answer hold disk, not the daemon's memory, and get it whole")
  func slowReadersHoldDisk() throws {
    // The readers wait while the others' reports are built: longer than
    // the default 30 s without progress would close their connections.
    let fixture = try DaemonFixture(arguments: ["--connection-timeout", "300"])
    defer { fixture.tearDown() }
    let client = HTTPClient(timeout: 60)
    try postWideEvents(fixture, client)
    let fast = try client.get(fixture.daemon.url(Self.widePath), key: fixture.readKey)
    try #require(fast.status == 200 && fast.body.count > 4_000_000, "\(fast.body.count) bytes")
    let pid = fixture.daemon.process.processIdentifier

    let readers = try (0..<10).map { _ in try slowReader(fixture, waiting: false) }
    for reader in readers { waitForAnswer(reader) }
    Thread.sleep(forTimeInterval: 0.5)
    // Held in memory, ten answers would be 10 × 4.7 MB of it.
    let metrics = try client.get(fixture.daemon.url("/metrics")).text
    let inMemory = Self.gauge(metrics, #"uptake_answer_backlog_bytes{held="memory"}"#)
    let inFiles = Self.gauge(metrics, #"uptake_answer_backlog_bytes{held="file"}"#)
    #expect(inMemory < Double(1 << 20), "\(inMemory) bytes of answers held in memory")
    #expect(
      inFiles == 10 * Double(fast.body.count),
      "\(inFiles) bytes of answers in files for ten readers")
    let spilled = try openAnswerFiles(pid, in: fixture.scratch.url.path)
    #expect(spilled == 10, "each answer is read from a file of its own: \(spilled)")
    let files = try FileManager.default.contentsOfDirectory(atPath: fixture.scratch.url.path)
    #expect(
      Set(files).isSubset(of: Self.databaseFiles), "the answers' files have no name: \(files)")

    for reader in readers {
      let (text, closed) = reader.readUntilClosed(timeout: 30)
      let body = text.range(of: "\r\n\r\n").map { Array(text[$0.upperBound...].utf8) }
      #expect(closed && body == Array(fast.body), "a slow reader gets the very same answer")
    }
    var open = spilled
    for _ in 0..<50 where open != 0 {
      Thread.sleep(forTimeInterval: 0.1)
      open = try openAnswerFiles(pid, in: fixture.scratch.url.path)
    }
    #expect(open == 0, "each file is closed once its answer is sent")
  }

  /// 32 updates by 1,000 versions and OS versions, every name as long as
  /// the contract allows: `widePath` answers 32,000 rows of CSV, some
  /// 4.7 MB, more than the kernel's socket buffers (4 MiB at most here)
  /// take off the daemon.
  private func postWideEvents(_ fixture: DaemonFixture, _ client: HTTPClient) throws {
    func padded(_ text: String, to length: Int) -> String {
      text + String(repeating: "x", count: length - text.count)
    }
    let events = (0..<32_000).map {
      eventJSON(
        updateId: padded("u\($0 / 1_000)-", to: 64),
        appVersion: padded("1.\($0 % 1_000).0-", to: 32),
        installId: "i\($0)", osVersion: padded("17.\($0 % 1_000)-", to: 32))
    }
    for start in stride(from: 0, to: events.count, by: 1_000) {
      let stored = try client.postJSON(
        fixture.daemon.url("/v1/events"), key: fixture.ingestKey,
        batchJSON(Array(events[start..<min(events.count, start + 1_000)])))
      try #require(stored.status == 200)
    }
  }

  private static let widePath = "/v1/report?groupBy=date,updateId,appVersion,osVersion&format=csv"

  /// A connection that has asked for `widePath` and reads nothing, through
  /// a receive buffer of 4 KiB, returned once its answer starts to arrive
  /// (the report is built and handed over by then) unless not `waiting`.
  private func slowReader(_ fixture: DaemonFixture, waiting: Bool = true) throws -> RawConnection {
    let reader = try RawConnection(port: fixture.daemon.port, receiveBuffer: 4096)
    reader.send(
      "GET \(Self.widePath) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(fixture.readKey)\r\n"
        + "Connection: close\r\n\r\n")
    if waiting { waitForAnswer(reader) }
    return reader
  }

  private func waitForAnswer(_ reader: RawConnection) {
    var arriving = pollfd(fd: reader.descriptor, events: Int16(POLLIN), revents: 0)
    #expect(poll(&arriving, 1, 60_000) == 1, "the answer starts")
  }

  private static func gauge(_ metrics: String, _ series: String) -> Double {
    metrics.split(separator: "\n").first { $0.hasPrefix(series + " ") }
      .flatMap { Double($0.split(separator: " ").last ?? "") } ?? -1
  }

  /// What the test's directory holds besides answers: the database, its
  /// rollups file, their logs, and the daemon's log.
  private static let databaseFiles: Set<String> = [
    "uptake.db", "uptake.db-wal", "uptake.db-shm", "uptake.db-rollups", "uptake.db-rollups-wal",
    "uptake.db-rollups-shm", "uptaked-1.log",
  ]

  /// How many descriptors of the daemon point at a file of `directory`
  /// without a name: an answer's (O_TMPFILE's `#inode`, or an unlinked one).
  private func openAnswerFiles(_ pid: Int32, in directory: String) throws -> Int {
    let descriptors = "/proc/\(pid)/fd"
    return try FileManager.default.contentsOfDirectory(atPath: descriptors).count {
      let target =
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(descriptors)/\($0)")) ?? ""
      return target.hasPrefix(directory + "/") && target.hasSuffix(" (deleted)")
    }
  }
}
