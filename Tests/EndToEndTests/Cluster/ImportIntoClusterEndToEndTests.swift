import Foundation
import Testing
import UptakeTestSupport

/// `uptake import --clickhouse` into two real clickhouse-server shards:
/// the same lines, checked and counted as one box counts them, each event
/// stored once however often the file is imported.
@Suite("uptake import --clickhouse loads a file into the cluster", .serialized)
struct ImportIntoClusterEndToEndTests {
  /// 1,000 lines: 900 with ids, 50 of them repeating an earlier one; 80
  /// without an id; 20 an event no rule accepts.
  static let lines: [String] =
    (0..<900).map { eventJSON(id: "e-\($0 % 850)", installId: "i\($0 % 97)") }
    + (0..<80).map { eventJSON(updateId: "u\($0 % 3)", installId: "i\($0)") }
    + (0..<20).map { eventJSON(id: "bad-\($0)", action: "bogus") }

  @Test("the counts of one box, first and again; every event once, id-less ones once a run")
  func sameCountsAsOneBox() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = scratch.path("one-box.db")
    let file = scratch.path("events.ndjson")
    try Data(Self.lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
    try #require(try uptake(["apps", "add", "shop", "--db", database]).status == 0)
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let flags = NodeShippingEndToEndTests.nodeArguments(shards)
    try #require(try uptake(["apps", "add", "shop"] + flags).status == 0)
    try MigrateToClickHouseEndToEndTests.stopMerges(shards, flags)

    for (run, expected) in [
      (1, "accepted 930, duplicates 50, rejected 20\n"),
      (2, "accepted 80, duplicates 900, rejected 20\n"),
    ] {
      let oneBox = try uptake(["import", "--app", "shop", "--db", database, file])
      let cluster = try uptake(["import", "--app", "shop", file] + flags)
      #expect(oneBox.standardOutput == expected, "one box, run \(run)")
      #expect(cluster.status == 0, "\(cluster.standardError)")
      #expect(cluster.standardOutput == expected, "cluster, run \(run)")
      #expect(cluster.standardError == oneBox.standardError, "the same rejections shown")
    }
    // 850 events with ids once, and each run's 80 without.
    #expect(
      try MigrateToClickHouseEndToEndTests.rowsAndDistinctIds(shards) == "1010\t1010\n",
      "no event stored twice, before any merge")
    let scratchLeft = try FileManager.default.contentsOfDirectory(
      atPath: NSTemporaryDirectory()
    ).filter { $0.hasPrefix("uptake-import-") }
    #expect(scratchLeft.isEmpty, "the scratch databases are removed: \(scratchLeft)")
  }

  @Test("an unknown app exits 65, a cluster away 69, --db beside --clickhouse 64")
  func refusals() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let file = scratch.path("events.ndjson")
    try Data(eventJSON(id: "x").utf8).write(to: URL(fileURLWithPath: file))
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let flags = NodeShippingEndToEndTests.nodeArguments(shards)
    #expect(try uptake(["import", "--app", "nobody", file] + flags).status == 65)
    #expect(
      try uptake(["import", "--app", "shop", file, "--clickhouse", "http://127.0.0.1:1"]).status
        == 69)
    #expect(
      try uptake(["import", "--app", "shop", file, "--db", scratch.path("x.db")] + flags).status
        == 64)
  }
}
