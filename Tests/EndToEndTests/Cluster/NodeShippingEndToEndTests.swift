import Foundation
import Testing
import UptakeTestSupport

/// `uptaked --clickhouse …` over two real clickhouse-server shards: every
/// acknowledged event reaches the cluster once, whatever fails meanwhile.
@Suite("A node ships its spool to ClickHouse", .serialized)
struct NodeShippingEndToEndTests {
  /// A node's flags over `shards`, as the cluster `uptake`.
  static func nodeArguments(_ shards: ClickHouseShards, extra: [String] = []) -> [String] {
    [
      "--clickhouse", shards.urls.map(\.absoluteString).joined(separator: ","),
      "--clickhouse-cluster", ClickHouseShards.clusterName,
    ] + extra
  }

  @Test("every acknowledged event arrives once, retries and id-less events included")
  func shipsEveryEventOnce() throws {
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let node = try DaemonFixture(arguments: Self.nodeArguments(shards))
    defer { node.tearDown() }

    let withIds = (0..<300).map {
      eventJSON(id: "e\($0)", updateId: "u\($0 % 3)", installId: "i\($0 % 40)")
    }
    let withoutIds = (0..<50).map { eventJSON(updateId: "u9", installId: "j\($0)") }
    try node.post(Array(withIds[..<200]))
    try node.post(withoutIds)
    // A retry of the first batch, and the rest with some of it again.
    let retried = try HTTPClient().postJSON(
      node.daemon.url("/v1/events"), key: node.ingestKey, batchJSON(Array(withIds[..<200])))
    #expect(retried.text == #"{"accepted":0,"duplicates":200,"rejected":[]}"#)
    _ = try HTTPClient().postJSON(
      node.daemon.url("/v1/events"), key: node.ingestKey, batchJSON(Array(withIds[150...])))

    try Self.waitUntilShipped(node)
    let total = try shards.query(0, "SELECT count(), uniqExact(id) FROM uptake.events FINAL")
    #expect(total == "350\t350\n")
    // Sharded by install: each shard holds part, and no install is split.
    let onShards = try (0..<2).map {
      Int(
        try shards.query($0, "SELECT count() FROM uptake.events_local FINAL").trimmingCharacters(
          in: .whitespacesAndNewlines)) ?? -1
    }
    #expect(onShards.allSatisfy { $0 > 0 } && onShards.reduce(0, +) == 350, "\(onShards)")
    let split = try shards.query(
      0,
      """
      SELECT count() FROM (SELECT install_id FROM remote('127.0.0.1:\(shards.shards[0].tcpPort)',
      uptake.events_local) GROUP BY install_id) WHERE install_id IN (SELECT install_id FROM
      remote('127.0.0.1:\(shards.shards[1].tcpPort)', uptake.events_local))
      """)
    #expect(split == "0\n")

    let metrics = try Self.metrics(node)
    #expect(metrics["uptake_shipped_events_total"] == 350)
    #expect(metrics["uptake_spool_events"] == 0)
    #expect(metrics["uptake_cluster_up"] == 1)
    let ready = try HTTPClient().get(node.daemon.url("/readyz"), key: nil)
    #expect(ready.status == 200)
    #expect(
      ready.text.contains("shipping to ClickHouse, 0.0 s behind; 0 events wait"), "\(ready.text)")
  }

  @Test("with ClickHouse away ingest goes on, /readyz says why, and all ships once it is back")
  func clickHouseAway() throws {
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let node = try DaemonFixture(arguments: Self.nodeArguments(shards))
    defer { node.tearDown() }
    try node.post((0..<20).map { eventJSON(id: "before\($0)", installId: "i\($0)") })
    try Self.waitUntilShipped(node)

    shards.stop(0)
    shards.stop(1)
    for batch in 0..<5 {
      try node.post((0..<100).map { eventJSON(id: "away\(batch)-\($0)", installId: "i\($0)") })
    }
    try Self.waitFor("/readyz to name the failure") {
      let ready = try HTTPClient().get(node.daemon.url("/readyz"), key: nil)
      return ready.status == 200 && ready.text.contains("shipping to ClickHouse fails since")
    }
    let away = try Self.metrics(node)
    #expect(away["uptake_spool_events"] == 500)
    #expect(away["uptake_cluster_up"] == 0)
    #expect((away["uptake_shipping_lag_seconds"] ?? 0) > 0)

    try shards.start(0)
    try shards.start(1)
    try Self.waitUntilShipped(node, seconds: 60)
    #expect(
      try shards.query(0, "SELECT count(), uniqExact(id) FROM uptake.events FINAL")
        == "520\t520\n")
  }

  @Test("a node killed with -9 while posting ships everything it acknowledged after its restart")
  func killedNode() throws {
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let node = try DaemonFixture(arguments: Self.nodeArguments(shards))
    defer { node.tearDown() }
    let load = Load(node, prefix: "k", batches: 400)
    let acknowledged = load.acknowledged
    try Self.waitFor("some batches acknowledged") { acknowledged.count >= 2_000 }
    node.daemon.killHard()
    acknowledged.waitUntilFinished()
    try node.restart()
    try Self.waitUntilShipped(node, seconds: 60)

    let ids = Set(
      try shards.query(0, "SELECT DISTINCT id FROM uptake.events").split(separator: "\n").map(
        String.init))
    let missing = acknowledged.ids.subtracting(ids)
    #expect(acknowledged.count >= 2_000)
    #expect(
      missing.isEmpty, "\(missing.count) acknowledged events missing, e.g. \(missing.prefix(3))")
    let counts = try shards.query(0, "SELECT count(), uniqExact(id) FROM uptake.events FINAL")
    #expect(counts == "\(ids.count)\t\(ids.count)\n")
    let raw = try shards.query(0, "SELECT count() FROM uptake.events")
    print(
      "node killed during load: \(acknowledged.count) events acknowledged, \(ids.count) distinct"
        + " ids in the cluster (\(ids.count - acknowledged.count) taken but unanswered),"
        + " rows before merges \(raw.trimmingCharacters(in: .whitespacesAndNewlines))")
  }

  @Test("a shard stopped during load: ingest answers 200, reports 503, then every event once")
  func shardStoppedDuringLoad() throws {
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let node = try DaemonFixture(arguments: Self.nodeArguments(shards))
    defer { node.tearDown() }
    let load = Load(node, prefix: "s", batches: 300, pauseSeconds: 0.01)
    let (acknowledged, refusedWhileDown) = (load.acknowledged, load.refused)
    try Self.waitFor("load under way") { acknowledged.count >= 2_000 }
    shards.stop(1)
    try Self.waitFor("shipping to fail") {
      try Self.metrics(node)["uptake_cluster_up"] == 0
    }
    let report = try node.report("/v1/updates")
    #expect(report.status == 503, "\(report.text)")
    let atStop = acknowledged.count
    try Self.waitFor("more load acknowledged with the shard down") {
      acknowledged.count >= atStop + 2_000
    }
    try shards.start(1)
    acknowledged.waitUntilFinished()
    try Self.waitUntilShipped(node, seconds: 60)

    let stored = try shards.query(0, "SELECT count(), uniqExact(id) FROM uptake.events")
    let fields = stored.split(whereSeparator: { $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
    print(
      "shard stopped during load: \(acknowledged.count) events acknowledged,"
        + " \(refusedWhileDown.count) refused, rows \(fields.first ?? -1),"
        + " distinct ids \(fields.last ?? -1)")
    #expect(refusedWhileDown.count == 0, "ingest answered 200 throughout")
    let ids = Set(
      try shards.query(0, "SELECT DISTINCT id FROM uptake.events").split(separator: "\n").map(
        String.init))
    #expect(ids == acknowledged.ids, "every acknowledged event, and nothing else")
    let updates = try node.report("/v1/updates?test=include")
    #expect(updates.status == 200)
    #expect(updates.text.contains(#""impression":\#(acknowledged.count)"#), "\(updates.text)")
  }

  @Test("a full spool answers 503 until the cluster takes its events")
  func fullSpool() throws {
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let node = try DaemonFixture(arguments: Self.nodeArguments(shards))
    defer { node.tearDown() }
    try Self.waitUntilShipped(node)
    let emptySpool = Int(try #require(try Self.metrics(node)["uptake_spool_bytes"]))
    shards.stop(0)
    shards.stop(1)
    let cap = emptySpool + (1 << 20)
    try node.restart(arguments: Self.nodeArguments(shards, extra: ["--max-spool-bytes", "\(cap)"]))

    var accepted = 0
    var refused: HTTPResponse?
    for batch in 0..<200 where refused == nil {
      let events = (0..<100).map {
        eventJSON(
          id: "full\(batch)-\($0)-\(String(repeating: "x", count: 50))",
          installId: "install-\(batch)-\($0)-\(String(repeating: "y", count: 40))")
      }
      let answer = try HTTPClient().postJSON(
        node.daemon.url("/v1/events"), key: node.ingestKey, batchJSON(events))
      if answer.status == 200 {
        try #require(answer.text == #"{"accepted":100,"duplicates":0,"rejected":[]}"#)
        accepted += 100
      } else {
        refused = answer
      }
    }
    let full = try #require(refused, "a spool of \(cap) bytes took \(accepted) events")
    #expect(full.status == 503)
    let ready = try HTTPClient().get(node.daemon.url("/readyz"), key: nil)
    #expect(ready.status == 503)
    #expect(ready.text.contains("the spool is full; shipping to ClickHouse fails"), "\(ready.text)")
    #expect(try Self.metrics(node)["uptake_spool_limit_bytes"] == Double(cap))
    // The spool's size is looked at once a second while shipping fails.
    try Self.waitFor("the spool's size near its cap") {
      try Self.metrics(node)["uptake_spool_bytes"] ?? 0 > Double(cap) * 0.8
    }

    try shards.start(0)
    try shards.start(1)
    try Self.waitUntilShipped(node, seconds: 60)
    try Self.waitFor("ingest to take events again") {
      let answer = try HTTPClient().postJSON(
        node.daemon.url("/v1/events"), key: node.ingestKey,
        batchJSON([eventJSON(id: "after", installId: "i1")]))
      return answer.status == 200
    }
    try Self.waitUntilShipped(node)
    #expect(
      try shards.query(0, "SELECT uniqExact(id) FROM uptake.events") == "\(accepted + 1)\n")
  }

  @Test("a one-box database is refused as a node's spool, which would be emptied as it ships")
  func oneBoxDatabaseRefused() throws {
    let oneBox = try DaemonFixture()
    defer { oneBox.tearDown() }
    try oneBox.post([eventJSON(id: "kept", installId: "i1")])
    oneBox.stop()
    #expect(throws: DaemonError.self) {
      try oneBox.restart(arguments: ["--clickhouse", "http://127.0.0.1:9"])
    }
    let log = try String(contentsOfFile: oneBox.scratch.path("uptaked-2.log"), encoding: .utf8)
    #expect(log.contains("holds the events of a one-box uptaked (1)"), "\(log)")
    try oneBox.restart()
    #expect(try oneBox.events("u1") == 1, "the database is left as it was")
  }

  // MARK: - Waiting

  static func metrics(_ node: DaemonFixture) throws -> [String: Double] {
    let text = try HTTPClient().get(node.daemon.url("/metrics"), key: nil).text
    var values: [String: Double] = [:]
    for sample in try PrometheusExposition(text).samples where sample.labels.isEmpty {
      values[sample.name] = sample.value
    }
    return values
  }

  /// Waits until the node's spool has nothing left to ship.
  static func waitUntilShipped(_ node: DaemonFixture, seconds: Double = 20) throws {
    try waitFor("the spool shipped", seconds: seconds) {
      let metrics = try metrics(node)
      return metrics["uptake_spool_events"] == 0 && metrics["uptake_cluster_up"] == 1
    }
  }

  static func waitFor(_ what: String, seconds: Double = 20, _ done: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if try done() { return }
      Thread.sleep(forTimeInterval: 0.1)
    }
    Issue.record("gave up waiting \(seconds) s for \(what)")
    throw CancellationError()
  }
}

/// Batches of 50 events with ids `PREFIXbatch-n` posted to a node from a
/// thread of their own, until they are all sent or a request gets no
/// answer (the node was killed); what was acknowledged and refused.
private struct Load {
  let acknowledged = Acknowledged()
  let refused = Acknowledged()

  init(_ node: DaemonFixture, prefix: String, batches: Int, pauseSeconds: Double = 0) {
    let (url, key) = (node.daemon.url("/v1/events"), node.ingestKey)
    let (acknowledged, refused) = (acknowledged, refused)
    let poster = Thread {
      for batch in 0..<batches {
        let ids = (0..<50).map { "\(prefix)\(batch)-\($0)" }
        let body = batchJSON(
          ids.enumerated().map { eventJSON(id: $1, installId: "i\(batch % 53)-\($0 % 7)") })
        guard let answer = try? HTTPClient(timeout: 10).postJSON(url, key: key, body) else {
          break
        }
        if answer.status == 200 { acknowledged.add(ids) } else { refused.add(ids) }
        if pauseSeconds > 0 { Thread.sleep(forTimeInterval: pauseSeconds) }
      }
      acknowledged.finish()
    }
    poster.start()
  }
}

/// The event ids the poster thread had acknowledged.
private final class Acknowledged: @unchecked Sendable {
  private let lock = NSCondition()
  private var acknowledged = Set<String>()
  private var finished = false

  func add(_ ids: [String]) {
    lock.lock()
    acknowledged.formUnion(ids)
    lock.unlock()
  }

  var ids: Set<String> {
    lock.lock()
    defer { lock.unlock() }
    return acknowledged
  }

  var count: Int { ids.count }

  func finish() {
    lock.lock()
    finished = true
    lock.broadcast()
    lock.unlock()
  }

  func waitUntilFinished() {
    lock.lock()
    while !finished { lock.wait() }
    lock.unlock()
  }
}
