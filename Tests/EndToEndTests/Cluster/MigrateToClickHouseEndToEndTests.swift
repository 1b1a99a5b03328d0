import Foundation
import Testing
import UptakeTestSupport

/// `uptake migrate-to-clickhouse` from a one-box database into two real
/// clickhouse-server shards: apps with the keys their clients hold,
/// configuration versions, and every event once, also after a kill -9.
@Suite("uptake migrate-to-clickhouse moves a one-box database into a cluster", .serialized)
struct MigrateToClickHouseEndToEndTests {
  @Test("apps and keys, both configuration versions, every event once; reports as one box's")
  func movesEverything() throws {
    let oneBox = try DaemonFixture()
    defer { oneBox.tearDown() }
    let database = oneBox.databasePath
    let seed = UInt64.random(in: 1...UInt64.max)
    print("migration seed: \(seed)")
    // Up to 600 events over 20 days (today's later than now are refused):
    // some without id, some test events.
    var accepted = 0
    for batch in ClusterReportsEndToEndTests.batches(seed: seed) {
      let answer = try HTTPClient().postJSON(
        oneBox.daemon.url("/v1/events"), key: oneBox.ingestKey, batch)
      try #require(answer.status == 200, "\(answer.text)")
      accepted += try JSONDecoder().decode(Accepted.self, from: answer.body).accepted
    }
    try #require(try uptake(["apps", "add", "shop", "--db", database]).status == 0)
    let shopEvents = (0..<300).map {
      eventJSON(
        id: $0 % 4 == 0 ? nil : "shop-\($0)", updateId: "s\($0 % 2)", installId: "i\($0 % 30)",
        test: $0 % 10 == 0 ? true : nil)
    }
    let imported = try uptake(
      ["import", "--app", "shop", "--db", database, "-"],
      input: Data(shopEvents.joined(separator: "\n").utf8))
    try #require(imported.standardOutput == "accepted 300, duplicates 0, rejected 0\n")
    let documents = ["2.0.0", "2.1.0"].map {
      TwoNodes.configuration(updateId: "update-1", latestVersion: $0)
    }
    for document in documents {
      let put = try uptake(
        ["updates", "put", "--app", "default", "-", "--db", database], input: Data(document.utf8))
      try #require(put.status == 0, "\(put.standardError)")
    }

    let total = accepted + shopEvents.count
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let flags = NodeShippingEndToEndTests.nodeArguments(shards)
    try Self.stopMerges(shards, flags)
    let migrate = ["migrate-to-clickhouse", "--db", database] + flags
    let first = try uptake(migrate)
    #expect(first.status == 0, "\(first.standardError)")
    #expect(
      first.standardOutput == """
        apps: 2 added, 0 given this database's keys, 0 already in the cluster
        configuration versions: 2 added, 0 already in the cluster
        events: \(total) shipped, 0 found in the cluster from a stopped run, \(total) in all

        """)
    #expect(
      first.standardError.contains("events: \(total) of \(total) in the cluster, "),
      "\(first.standardError)")
    #expect(try Self.rowsAndDistinctIds(shards) == "\(total)\t\(total)\n")
    #expect(
      try shards.query(
        0, "SELECT app_id, version FROM uptake.update_configs FINAL ORDER BY app_id, version")
        == "default\t1\ndefault\t2\n")

    let again = try uptake(migrate)
    #expect(again.status == 0, "\(again.standardError)")
    #expect(
      again.standardOutput == """
        apps: 0 added, 0 given this database's keys, 2 already in the cluster
        configuration versions: 0 added, 2 already in the cluster
        events: 0 shipped, 0 found in the cluster from a stopped run, \(total) in all

        """)
    #expect(
      try Self.rowsAndDistinctIds(shards) == "\(total)\t\(total)\n", "a second run changes nothing")

    // A node over the cluster takes the one box's apps and keys, makes
    // none of its own, and answers reports as one box does.
    let nodeScratch = try ScratchDirectory()
    defer { nodeScratch.remove() }
    let node = try Daemon(
      databasePath: nodeScratch.databasePath, logPath: nodeScratch.path("uptaked.log"),
      arguments: flags)
    defer { node.stop() }
    #expect(node.ingestKey == nil, "the node found the migrated apps")
    let spool = try uptake(["migrate-to-clickhouse", "--db", nodeScratch.databasePath] + flags)
    #expect(spool.status == 65)
    #expect(spool.standardError.contains("is a node's spool"), "\(spool.standardError)")
    try NodeShippingEndToEndTests.waitFor("the configuration on the node") {
      try HTTPClient().get(node.url("/v1/updates"), key: oneBox.readKey).text.contains(
        #""targetVersion":"2.1.0""#)
    }
    for path in [
      "/v1/updates?test=include", "/v1/updates?test=only", "/v1/updates/update-1?test=include",
      "/v1/report?groupBy=date,updateId,action&test=include", "/v1/adoption?test=include",
    ] {
      let fromCluster = try HTTPClient().get(node.url(path), key: oneBox.readKey)
      #expect(fromCluster.status == 200, "\(path): \(fromCluster.text)")
      #expect(fromCluster.text == (try oneBox.report(path)).text, "\(path), seed \(seed)")
    }
    let live = try uptake(["updates", "get", "--app", "default"] + flags)
    #expect(live.standardOutput == documents[1] + "\n")
    #expect(live.standardError == "app default: configuration version 2\n")
    let posted = try HTTPClient().postJSON(
      node.url("/v1/events"), key: oneBox.ingestKey,
      batchJSON([eventJSON(id: "after-the-move", installId: "i1")]))
    #expect(posted.text == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)

    // An app whose keys changed in the cluster is a conflict the operator
    // settles.
    try #require(try uptake(["apps", "rotate", "shop", "--ingest"] + flags).status == 0)
    let conflict = try uptake(migrate)
    #expect(conflict.status == 65)
    #expect(conflict.standardError.contains("--replace-keys"), "\(conflict.standardError)")
    let replaced = try uptake(migrate + ["--replace-keys"])
    #expect(replaced.status == 0, "\(replaced.standardError)")
    #expect(
      replaced.standardOutput.hasPrefix(
        "apps: 0 added, 1 given this database's keys, 1 already in the cluster\n"))
  }

  @Test("killed with -9 during an insert and run again: every event once; a third run adds none")
  func killedAndRestarted() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = scratch.databasePath
    try #require(try uptake(["apps", "add", "big", "--db", database]).status == 0)
    let total = 200_000
    let days = Days()
    var lines = ""
    lines.reserveCapacity(total * 140)
    for index in 0..<total {
      lines += eventJSON(
        id: index % 10 == 0 ? nil : "big-\(index)", updateId: "u\(index % 5)",
        installId: "i\(index % 5000)", timestamp: days.time(-1 - Int64(index % 7), "12:00:00"),
        test: index % 50 == 0 ? true : nil)
      lines += "\n"
    }
    let imported = try uptake(
      ["import", "--app", "big", "--db", database, "-"], input: Data(lines.utf8))
    try #require(imported.standardOutput == "accepted \(total), duplicates 0, rejected 0\n")
    let source = try Data(contentsOf: URL(fileURLWithPath: database))

    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let flags = NodeShippingEndToEndTests.nodeArguments(shards)
    try Self.stopMerges(shards, flags)
    let migrate = ["migrate-to-clickhouse", "--db", database, "--block-events", "2000"] + flags

    // Killed while one of its inserts runs, a third of the way or more.
    let child = ChildProcess()
    let path = try BuiltProgram.path("uptake")
    async let killedRun = child.run(path, migrate)
    try NodeShippingEndToEndTests.waitFor("an insert under way past 60000 events", seconds: 120) {
      let rows = Int(try Self.rows(shards)) ?? 0
      let inserting = try shards.query(
        0, "SELECT count() FROM system.processes WHERE query_id LIKE 'uptake-migrate-%'")
      return rows >= 60_000 && inserting != "0\n"
    }
    child.kill()
    #expect(try await killedRun == nil, "killed before it finished")
    let rowsAtKill = try Self.rows(shards)

    let second = try uptake(migrate)
    #expect(second.status == 0, "\(second.standardError)")
    #expect(
      second.standardOutput.contains(" in all\n") && second.standardOutput.contains("events: "),
      "\(second.standardOutput)")
    #expect(try Self.rowsAndDistinctIds(shards) == "\(total)\t\(total)\n")
    let perShard = try (0..<2).map {
      try shards.query($0, "SELECT count() FROM uptake.events_local")
    }
    #expect(perShard.allSatisfy { $0 != "0\n" }, "both shards hold events: \(perShard)")

    let third = try uptake(migrate)
    #expect(third.status == 0, "\(third.standardError)")
    #expect(
      third.standardOutput.hasSuffix(
        "events: 0 shipped, 0 found in the cluster from a stopped run, \(total) in all\n"))
    #expect(try Self.rowsAndDistinctIds(shards) == "\(total)\t\(total)\n")
    #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == source, "the source as it was")
    print(
      "migration killed with \(rowsAtKill) rows in the cluster; the next run: "
        + "\(second.standardOutput.split(separator: "\n").last ?? ""); rows and distinct ids: "
        + (try Self.rowsAndDistinctIds(shards)).replacingOccurrences(of: "\t", with: " and "))
  }

  @Test("a missing database exits 66 and is not made; an unreachable cluster exits 69")
  func refusals() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let away = ["--clickhouse", "http://127.0.0.1:9"]
    let missing = try uptake(["migrate-to-clickhouse", "--db", scratch.path("none.db")] + away)
    #expect(missing.status == 66)
    #expect(missing.standardError.contains("does not exist"), "\(missing.standardError)")
    #expect(!FileManager.default.fileExists(atPath: scratch.path("none.db")))

    try #require(try uptake(["apps", "add", "shop", "--db", scratch.databasePath]).status == 0)
    let unreachable = try uptake(["migrate-to-clickhouse", "--db", scratch.databasePath] + away)
    #expect(unreachable.status == 69)
    #expect(unreachable.standardError.contains("cannot be reached"), "\(unreachable.standardError)")
  }

  // MARK: - Figures

  /// What ingest answers, as far as these tests read it.
  private struct Accepted: Decodable {
    let accepted: Int
  }

  /// Makes the cluster's schema and stops its merges, so that a row
  /// inserted twice stays two rows and `count()` shows it.
  static func stopMerges(_ shards: ClickHouseShards, _ flags: [String]) throws {
    try #require(try uptake(["apps", "list"] + flags).status == 0)
    for index in 0..<2 { _ = try shards.query(index, "SYSTEM STOP MERGES uptake.events_local") }
  }

  static func rows(_ shards: ClickHouseShards) throws -> String {
    try shards.query(0, "SELECT count() FROM uptake.events").trimmingCharacters(
      in: .whitespacesAndNewlines)
  }

  /// Rows of `events` and their distinct ids, tab-separated.
  static func rowsAndDistinctIds(_ shards: ClickHouseShards) throws -> String {
    try shards.query(0, "SELECT count(), uniqExact(id) FROM uptake.events")
  }
}
