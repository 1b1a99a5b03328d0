import Foundation
import Testing
import UptakeTestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A slow reader pins its answer in the daemon until it has read it; past
/// --max-answer-backlog such answers, reports are refused with 503 until
/// they drain (issue 25: ten slow readers of a 19 MB CSV pinned 345 MB).
@Suite("uptaked: answers waiting for slow readers are bounded", .timeLimit(.minutes(2)))
struct AnswerBacklogEndToEndTests {
  @Test("while a slow reader holds a large answer past the cap, reports get 503; then 200")
  func slowReaderHoldsTheCap() throws {
    let fixture = try DaemonFixture(arguments: ["--max-answer-backlog", "1024"])
    defer { fixture.tearDown() }
    let client = HTTPClient(timeout: 60)
    // 32 updates by 1,000 versions and OS versions, every name as long as
    // the contract allows: 32,000 rows of CSV, some 4.7 MB, more than the
    // kernel's socket buffers (4 MiB at most here) take off the daemon.
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
    let path = "/v1/report?groupBy=date,updateId,appVersion,osVersion&format=csv"

    // Asks for it and reads nothing, through a receive buffer of 4 KiB.
    let reader = try RawConnection(port: fixture.daemon.port, receiveBuffer: 4096)
    reader.send(
      "GET \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(fixture.readKey)\r\n"
        + "Connection: close\r\n\r\n")
    // Once its answer starts to arrive, the report is built and handed over.
    var arriving = pollfd(fd: reader.descriptor, events: Int16(POLLIN), revents: 0)
    #expect(poll(&arriving, 1, 60_000) == 1, "the answer starts")
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
}
