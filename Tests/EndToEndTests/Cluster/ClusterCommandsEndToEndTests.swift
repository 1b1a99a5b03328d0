import Foundation
import Testing
import UptakeTestSupport

/// `uptake report`, `updates history` and `updates status` with
/// `--clickhouse`, against the same commands with `--db` on the one-box
/// database the cluster was migrated from: the same bytes.
@Suite("uptake report and updates history|status read the cluster as one box", .serialized)
struct ClusterCommandsEndToEndTests {
  @Test("every report, every test mode, history and status print as with --db; refusals")
  func sameAsOneBox() throws {
    // Lookups go nowhere: the one box's watch state is not compared.
    let oneBox = try DaemonFixture(arguments: ["--app-store-lookup-url", "http://127.0.0.1:9"])
    defer { oneBox.tearDown() }
    let database = oneBox.databasePath
    let seed = UInt64.random(in: 1...UInt64.max)
    print("cluster commands seed: \(seed)")
    for batch in ClusterReportsEndToEndTests.batches(seed: seed) {
      let answer = try HTTPClient().postJSON(
        oneBox.daemon.url("/v1/events"), key: oneBox.ingestKey, batch)
      try #require(answer.status == 200, "\(answer.text)")
    }
    // Two versions: the live one's target is the funnel's.
    for latest in ["2.0.0", "2.1.0"] {
      try Self.put(
        TwoNodes.configuration(updateId: "update-1", latestVersion: latest), database: database)
    }
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let flags = NodeShippingEndToEndTests.nodeArguments(shards)
    let migrate = ["migrate-to-clickhouse", "--db", database] + flags
    let migrated = try uptake(migrate)
    try #require(migrated.status == 0, "\(migrated.standardError)")

    var commands: [[String]] = []
    for test in ["exclude", "include", "only"] {
      commands.append(["report", "--app", "default", "--test", test])
      commands += (0..<5).map {
        ["report", "--app", "default", "--update", "update-\($0)", "--test", test]
      }
    }
    commands.append([
      "report", "--app", "default", "--update", "update-1", "--from", Days().date(-9), "--to",
      Days().date(-3),
    ])
    commands += [
      ["updates", "history", "--app", "default"], ["updates", "status", "--app", "default"],
    ]
    var outputs: [String] = []
    for command in commands {
      let fromCluster = try uptake(command + flags)
      let fromOneBox = try uptake(command + ["--db", database])
      #expect(fromOneBox.status == 0, "\(command): \(fromOneBox.standardError)")
      #expect(fromCluster.status == 0, "\(command): \(fromCluster.standardError)")
      #expect(fromCluster.standardError == "", "\(command)")
      #expect(fromCluster.standardOutput == fromOneBox.standardOutput, "\(command), seed \(seed)")
      outputs.append(fromOneBox.standardOutput)
    }
    #expect(
      outputs.contains { $0.contains("configured for ios: target version 2.1.0, option flexible") },
      "the live version's entry heads update-1's report")
    #expect(
      outputs.contains { $0.contains("ios=update-1@2.0.0") && $0.contains("ios=update-1@2.1.0") },
      "history lists both versions")

    // A third version watches the App Store: the cluster shows what it
    // holds of it, the configuration, and says where the lookups are.
    try Self.put(Self.watching, database: database)
    try #require(try uptake(migrate).status == 0)
    let history = ["updates", "history", "--app", "default"]
    #expect(
      try uptake(history + flags).standardOutput
        == uptake(history + ["--db", database]).standardOutput)
    let status = try uptake(["updates", "status", "--app", "default"] + flags)
    #expect(status.status == 0, "\(status.standardError)")
    #expect(
      status.standardOutput == """
        PLATFORM  COUNTRY  LATEST  APP STORE APP  GRACE HOURS
        ios       us       2.2.0   1234567890              12
        ios       de       2.2.0   1234567890              12

        """)
    #expect(
      status.standardError
        == "what the App Store serves is kept by each node in its own database: "
        + "run uptake updates status --db PATH on a node\n")

    for command in commands.suffix(3) {
      let unknown = try uptake(command.map { $0 == "default" ? "nope" : $0 } + flags)
      #expect(unknown.status == 65, "\(command): \(unknown.standardError)")
      #expect(unknown.standardError.contains("unknown app \"nope\""), "\(unknown.standardError)")
    }
    // With a shard down a report is refused whole.
    shards.stop(1)
    let partial = try uptake(["report", "--app", "default"] + flags)
    #expect(partial.status == 69, "\(partial.standardError)")
    #expect(partial.standardOutput == "")
  }

  @Test(
    "an unreachable cluster exits 69",
    arguments: [
      ["report", "--app", "default"], ["report", "--app", "default", "--update", "u1"],
      ["updates", "history", "--app", "default"], ["updates", "status", "--app", "default"],
    ])
  func unreachable(command: [String]) throws {
    let away = try uptake(command + ["--clickhouse", "http://127.0.0.1:9"])
    #expect(away.status == 69)
    #expect(away.standardOutput == "")
    #expect(away.standardError.contains("cannot be reached"), "\(away.standardError)")
  }

  /// Stores `document` as the one box's next configuration version.
  private static func put(_ document: String, database: String) throws {
    let put = try uptake(
      ["updates", "put", "--app", "default", "-", "--db", database], input: Data(document.utf8))
    try #require(put.status == 0, "\(put.standardError)")
  }

  /// A configuration whose iOS entry watches the App Store in two countries.
  private static let watching = TwoNodes.configuration(updateId: "update-1", latestVersion: "2.2.0")
    .replacingOccurrences(
      of: #""eol": false,"#,
      with:
        #""eol": false, "appStore": {"id": "1234567890", "countries": ["us", "de"], "graceHours": 12},"#
    )
}
