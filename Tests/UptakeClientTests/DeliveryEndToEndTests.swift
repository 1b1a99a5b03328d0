import Foundation
import Testing
import UptakeClient
import UptakeTestSupport

// The queue and its delivery against the real uptaked: the server's own
// counts prove that every recorded event is stored once, whatever happened
// on the way. A stub server stands in front of (or instead of) uptaked
// where a test must count tries or answer what uptaked would not.
@Suite("Delivery to the real uptaked", .serialized, .timeLimit(.minutes(3)))
struct DeliveryEndToEndTests {
  @Test("events queue while uptaked is down and are stored once when it is back")
  func queueWhileDown() async throws {
    let scene = try DaemonScene()
    defer { scene.tearDown() }
    let daemon = scene.daemon
    daemon.stop()

    let client = try scene.client(limits: .forTests(attemptsPerFlush: 2))
    client.record(.impression, updateId: "down-then-up")
    client.record(.download, updateId: "down-then-up")
    client.record(.impression, updateId: "down-then-up")
    let failed = await client.flush()
    #expect(failed.requests == 2, "a network error is retried up to attemptsPerFlush")
    #expect(failed.remaining == 3)
    #expect(client.stats.pending == 3)

    try daemon.restart(samePort: true)
    let delivered = await client.flush()
    #expect(delivered.requests == 1)
    #expect(delivered.remaining == 0)
    let again = await client.flush()
    #expect(again.requests == 0, "nothing is left to send")
    #expect(client.stats.delivered == 3)
    #expect(client.stats.duplicates == 0)
    #expect(try daemon.events("down-then-up", "impression") == 2)
    #expect(try daemon.events("down-then-up", "download") == 1)
  }

  @Test(
    "a client killed mid-flush loses nothing and stores nothing twice",
    arguments: [(0, false), (1, true), (2, false), (3, true)])
  func killedMidFlush(killedAtRequest: Int, afterStoring: Bool) async throws {
    let scene = try DaemonScene()
    defer { scene.tearDown() }
    let daemon = scene.daemon
    do {
      // Segments of 100 events; batches of 30 below cut them, so removals
      // rewrite segments as well as unlink them.
      let recorder = try scene.client(limits: .forTests(batchSize: 100))
      for _ in 0..<250 { recorder.record(.impression, updateId: "killed-mid-flush") }
    }

    // The stub passes batches on to uptaked; at request `killedAtRequest`
    // the flushing process is killed, before or after uptaked stored the
    // batch, and in either case before it hears the answer.
    let child = ChildProcess()
    let daemonURL = daemon.baseURL
    let proxy = try StubServer { request, number in
      guard number == killedAtRequest else { return StubServer.passing(request, to: daemonURL) }
      if afterStoring { _ = StubServer.passing(request, to: daemonURL) }
      child.kill()
      return .close
    }
    defer { proxy.stop() }
    let status = try await child.run(
      BuiltProgram.path("uptake-example"),
      [
        "flush", "--url", proxy.baseURL.absoluteString, "--key", daemon.ingestKey,
        "--storage", scene.storage.path, "--batch-size", "30",
      ])
    #expect(status == nil, "the example died of SIGKILL")
    #expect(proxy.requests.count == killedAtRequest + 1)

    // The next launch finds every batch not acknowledged, the killed one too.
    let relaunched = try scene.client()
    #expect(relaunched.stats.pending == 250 - 30 * killedAtRequest)
    let result = await relaunched.flush()
    #expect(result.remaining == 0)
    #expect(relaunched.stats.duplicates == (afterStoring ? 30 : 0))
    #expect(relaunched.stats.delivered == 250 - 30 * killedAtRequest - (afterStoring ? 30 : 0))
    #expect(try daemon.events("killed-mid-flush") == 250)
  }

  @Test("killed at random moments of its flushes, over rounds: each event stored once")
  func killedAtRandom() async throws {
    let scene = try DaemonScene()
    defer { scene.tearDown() }
    let daemon = scene.daemon
    for round in 1...3 {
      do {
        let recorder = try scene.client(limits: .forTests(batchSize: 50))
        for _ in 0..<200 { recorder.record(.impression, updateId: "killed-at-random") }
        #expect(recorder.stats.writeFailures == 0, "round \(round)")
      }
      let child = ChildProcess()
      let delay = Double.random(in: 0.02...0.4)
      Thread.detachNewThread {
        Thread.sleep(forTimeInterval: delay)
        child.kill()
      }
      _ = try await child.run(
        BuiltProgram.path("uptake-example"),
        [
          "flush", "--url", daemon.baseURL.absoluteString, "--key", daemon.ingestKey,
          "--storage", scene.storage.path, "--batch-size", "20",
        ])
    }
    let relaunched = try scene.client()
    let result = await relaunched.flush()
    #expect(result.remaining == 0)
    #expect(relaunched.stats.unreadableLines == 0)
    #expect(try daemon.events("killed-at-random") == 600)
  }

  @Test("an answer lost after the server stored the batch: the retry is a duplicate")
  func lostAnswerIsRetried() async throws {
    let scene = try DaemonScene()
    defer { scene.tearDown() }
    let daemon = scene.daemon
    let daemonURL = daemon.baseURL
    let proxy = try StubServer { request, number in
      let reply = StubServer.passing(request, to: daemonURL)
      return number == 0 ? .close : reply
    }
    defer { proxy.stop() }
    let client = try testClient(proxy.baseURL, key: daemon.ingestKey, storage: scene.storage)
    for _ in 0..<3 { client.record(.impression, updateId: "lost-answer") }
    let result = await client.flush()
    #expect(result.requests == 2)
    #expect(result.remaining == 0)
    #expect(client.stats.delivered == 0)
    #expect(client.stats.duplicates == 3)
    let tries = proxy.requests
    try #require(tries.count == 2)
    #expect(try eventIds(tries[0].body) == eventIds(tries[1].body))
    #expect(try daemon.events("lost-answer") == 3)
  }

  @Test("a wrong key: uptaked answers 401 once, the batch is discarded, not retried")
  func unauthorizedIsNotRetried() async throws {
    let scene = try DaemonScene()
    defer { scene.tearDown() }
    let daemon = scene.daemon
    let proxy = try StubServer.forwarding(to: daemon)
    defer { proxy.stop() }

    let client = try testClient(
      proxy.baseURL, key: "upi_not-a-key", storage: scene.storage)
    client.record(.impression, updateId: "wrong-key")
    client.record(.later, updateId: "wrong-key")
    let result = await client.flush()
    #expect(result.requests == 1)
    #expect(result.remaining == 0)
    #expect(client.stats.discarded == 2)
    #expect(proxy.requests.count == 1)
    #expect(try daemon.events("wrong-key") == 0)
  }

  @Test("400 and 413 discard the batch after one try", arguments: [400, 413])
  func refusedIsNotRetried(status: Int) async throws {
    let directory = try ScratchDirectory()
    defer { directory.remove() }
    let stub = try StubServer { _, _ in
      .respond(
        status: status, headers: ["Content-Type": "application/json"],
        body: #"{"error":{"code":"bad_request","message":"stub"}}"#)
    }
    defer { stub.stop() }
    let client = try testClient(stub.baseURL, key: "upi_k", storage: directory.appending("client"))
    client.record(.impression, updateId: "refused")
    let result = await client.flush()
    #expect(result.requests == 1)
    #expect(client.stats.discarded == 1)
    #expect(client.stats.pending == 0)
    #expect(stub.requests.count == 1)
  }

  @Test("429 and 503 are retried after Retry-After with the same ids", arguments: [429, 503])
  func retryAfterIsHonoured(status: Int) async throws {
    let scene = try DaemonScene()
    defer { scene.tearDown() }
    let daemon = scene.daemon
    let forward = try StubServer.forwarding(to: daemon)
    defer { forward.stop() }
    let stub = try StubServer { request, number in
      if number == 0 {
        return .respond(
          status: status, headers: ["Retry-After": "1"],
          body: #"{"error":{"code":"rate_limited","message":"stub"}}"#)
      }
      return forward.pass(request)
    }
    defer { stub.stop() }

    let client = try testClient(
      stub.baseURL, key: daemon.ingestKey, storage: scene.storage)
    for _ in 0..<3 { client.record(.impression, updateId: "retry-after-\(status)") }
    let result = await client.flush()
    #expect(result.requests == 2)
    #expect(result.remaining == 0)
    let tries = stub.requests
    try #require(tries.count == 2)
    #expect(tries[1].received.timeIntervalSince(tries[0].received) >= 0.95)
    #expect(try eventIds(tries[0].body) == eventIds(tries[1].body))
    #expect(try eventIds(tries[0].body).count == 3)
    #expect(try daemon.events("retry-after-\(status)") == 3)
  }

  @Test("a Retry-After longer than a flush waits ends the flush and holds the next one")
  func longRetryAfterHoldsFlushes() async throws {
    let directory = try ScratchDirectory()
    defer { directory.remove() }
    let stub = try StubServer { _, _ in .respond(status: 503, headers: ["Retry-After": "3600"]) }
    defer { stub.stop() }
    let client = try testClient(
      stub.baseURL, key: "upi_k", storage: directory.appending("client"),
      limits: .forTests(maxRetryAfterWait: 5))
    client.record(.impression, updateId: "held")
    let first = await client.flush()
    #expect(first.requests == 1)
    #expect(first.remaining == 1)
    let second = await client.flush()
    #expect(second.requests == 0, "no request before the hour has passed")
    #expect(stub.requests.count == 1)
  }

  @Test("a full queue drops its oldest events, counts them, and sends the rest")
  func boundedQueueDropsOldest() async throws {
    let scene = try DaemonScene()
    defer { scene.tearDown() }
    let daemon = scene.daemon
    let limits = UptakeLimits.forTests(maxQueuedEvents: 5, batchSize: 3)
    do {
      let client = try scene.client(limits: limits)
      for number in 1...8 { client.record(.impression, updateId: "bounded-\(number)") }
      #expect(client.stats.droppedOldest == 3)
      #expect(client.stats.pending == 5)
    }
    let relaunched = try scene.client(limits: limits)
    #expect(relaunched.stats.pending == 5, "the drops are on disk too")
    await relaunched.flush()
    #expect(try daemon.updateIds() == (4...8).map { "bounded-\($0)" })
  }

  @Test("a torn last line is skipped; the events around it are delivered")
  func tornLineIsSkipped() async throws {
    let scene = try DaemonScene()
    defer { scene.tearDown() }
    let daemon = scene.daemon
    let storage = scene.storage
    do {
      let client = try scene.client()
      for _ in 0..<3 { client.record(.impression, updateId: "torn") }
    }
    // A process killed in the middle of a write leaves half a line.
    let segment = storage.appendingPathComponent("queue/1.ndjson")
    let handle = try FileHandle(forWritingTo: segment)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(#"{"action":"impression","appVers"#.utf8))
    try handle.close()

    let relaunched = try scene.client()
    #expect(relaunched.stats.pending == 3)
    #expect(relaunched.stats.unreadableLines == 1)
    relaunched.record(.download, updateId: "torn")
    let result = await relaunched.flush()
    #expect(result.remaining == 0)
    #expect(relaunched.stats.delivered == 4)
    #expect(relaunched.stats.rejected == 0)
    #expect(try daemon.events("torn", "impression") == 3)
    #expect(try daemon.events("torn", "download") == 1)
    let left = try FileManager.default.contentsOfDirectory(
      atPath: storage.appendingPathComponent("queue").path)
    #expect(left.isEmpty, "delivered segments are removed: \(left)")
  }

  @Test("every event carries the contract's fields, and record refuses a bad updateId")
  func eventFields() async throws {
    let directory = try ScratchDirectory()
    defer { directory.remove() }
    let stub = try StubServer { _, _ in
      .respond(status: 200, body: #"{"accepted":2,"duplicates":0,"rejected":[]}"#)
    }
    defer { stub.stop() }
    let client = try testClient(stub.baseURL, key: "upi_k", storage: directory.appending("client"))
    client.record(.later, updateId: "782000001589015")
    client.record(.ignore, updateId: "has space")
    client.record(.download, updateId: String(repeating: "x", count: 65))
    client.record(.ignore, updateId: "v2.1:beta_1-x")
    #expect(client.stats.rejected == 2)
    await client.flush()
    let request = try #require(stub.requests.first)
    #expect(request.method == "POST")
    #expect(request.target == "/v1/events")
    #expect(request.headers["authorization"] == "Bearer upi_k")
    #expect(request.headers["content-type"] == "application/json")
    let body = try JSONSerialization.jsonObject(with: request.body) as? [String: Any]
    let events = try #require(body?["events"] as? [[String: Any]])
    try #require(events.count == 2)
    let first = events[0]
    #expect(first["updateId"] as? String == "782000001589015")
    #expect(first["action"] as? String == "later")
    #expect(first["appVersion"] as? String == "2.0.0")
    #expect(first["osVersion"] as? String == "17.4")
    #expect(first["platform"] as? String == "ios")
    #expect(first["installId"] as? String == client.installId)
    #expect((first["id"] as? String).flatMap(UUID.init(uuidString:)) != nil)
    let timestamp = try #require(first["timestamp"] as? String)
    let parsed = try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(timestamp)
    #expect(abs(parsed.timeIntervalSinceNow) < 60)
    #expect(events[1]["id"] as? String != first["id"] as? String)
  }

  @Test("records from many tasks while flushes run: every event stored exactly once")
  func concurrentRecordsAndFlushes() async throws {
    let scene = try DaemonScene()
    defer { scene.tearDown() }
    let daemon = scene.daemon
    let client = try scene.client(limits: .forTests(batchSize: 30))
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<6 {
        group.addTask {
          for _ in 0..<50 { client.record(.impression, updateId: "concurrent") }
        }
      }
      for _ in 0..<3 {
        group.addTask { await client.flush() }
      }
    }
    let last = await client.flush()
    #expect(last.remaining == 0)
    #expect(client.stats.delivered == 300)
    #expect(client.stats.duplicates == 0)
    #expect(try daemon.events("concurrent") == 300)
  }

  @Test("without flush(), a record is sent by itself a moment later")
  func autoFlush() async throws {
    let scene = try DaemonScene()
    defer { scene.tearDown() }
    let daemon = scene.daemon
    var limits = UptakeLimits.forTests()
    limits.autoFlushDelay = 0.2
    let client = try scene.client(limits: limits)
    client.record(.impression, updateId: "auto-flush")
    client.record(.download, updateId: "auto-flush")
    // Generous: on a busy machine the test process's tasks resume late.
    let deadline = Date().addingTimeInterval(60)
    while client.stats.pending > 0 && Date() < deadline {
      try await Task.sleep(nanoseconds: 50_000_000)
    }
    #expect(client.stats.delivered == 2)
    #expect(try daemon.events("auto-flush", "impression") == 1)
    #expect(try daemon.events("auto-flush", "download") == 1)
  }
}
