import Foundation
import Testing
import UptakeCluster
import UptakeTestSupport

/// The cluster's schema on real ClickHouse servers (Debian's 18.16): two
/// shards started as plain processes, as the cluster tests of issue 22 run.
@Suite("The ClickHouse schema on two real shards", .serialized, .timeLimit(.minutes(3)))
struct ClusterSchemaTests {
  static let nowMs: Int64 = 1_796_160_000_000

  /// The shards' layout before its schema is made.
  static func layout(_ shards: ClickHouseShards) -> ClusterLayout {
    ClusterLayout(
      servers: shards.urls.map { ClickHouseServer(url: $0) }, database: "uptake",
      cluster: ClickHouseShards.clusterName)
  }

  /// `count` events of `installs` installs, one JSON object a line.
  static func events(_ count: Int, installs: Int) -> Data {
    var lines = ""
    for index in 0..<count {
      lines += """
        {"app_id":"shop","id":"e\(index)","update_id":"u1","action":"impression",\
        "app_version":"1.0","install_id":"i\(index % installs)","platform":null,\
        "os_version":"17.4","previous_app_version":null,"is_test":0,"ts_ms":\(nowMs + Int64(index)),\
        "received_ms":\(nowMs),"day":"2026-12-02"}

        """
    }
    return Data(lines.utf8)
  }

  @Test("made on every shard; made again, nothing runs twice")
  func idempotent() throws {
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let layout = Self.layout(shards)

    let first = try ClusterSchema.migrate(layout, nowMs: Self.nowMs)
    let second = try ClusterSchema.migrate(layout, nowMs: Self.nowMs)

    #expect(first == ClusterSchema.knownMigrations.count * 2)
    #expect(second == 0)
    for index in 0..<2 {
      let tables = try shards.query(index, "SHOW TABLES FROM uptake").split(separator: "\n")
      #expect(
        tables == [
          "apps", "events", "events_local", "migrations", "report_day_installs",
          "report_day_installs_local", "report_day_installs_view", "report_days",
          "report_days_counted_view", "report_days_local", "report_hours", "report_hours_local",
          "report_hours_view", "schema_migrations", "update_configs",
        ])
      let recorded = try shards.query(
        index, "SELECT name FROM uptake.schema_migrations ORDER BY name")
      #expect(recorded.split(separator: "\n").map(String.init) == ClusterSchema.knownMigrations)
    }
  }

  @Test("a migration stopped after its ALTER runs again without adding the column twice")
  func alterRunsAgain() throws {
    let shards = try ClickHouseShards(count: 1)
    defer { shards.stopAll() }
    let layout = try shards.migratedLayout(cluster: nil)
    let server = layout.servers[0]
    // As if the migration that adds the column had stopped before
    // recording itself: its ALTER ran, its view may or may not have been
    // made.
    let names = ClusterSchema.knownMigrations
    let adding = try #require(names.firstIndex { $0.hasSuffix("report_days_inserts") })
    try server.execute("DROP TABLE uptake.schema_migrations")
    try server.execute(
      "CREATE TABLE uptake.schema_migrations (name String, applied_ms Int64) ENGINE = TinyLog")
    for name in names[..<adding] + names[(adding + 1)...] {
      try server.execute("INSERT INTO uptake.schema_migrations VALUES ('\(name)', 0)")
    }
    try server.execute("DROP TABLE uptake.report_days_counted_view")

    #expect(try ClusterSchema.migrate(layout, nowMs: Self.nowMs) == 1)

    let columns = try server.execute(
      "SELECT name FROM system.columns WHERE database = 'uptake' AND table = 'report_days_local'")
    #expect(columns.split(separator: "\n").filter { $0 == "inserts" }.count == 1)
    try server.insert(
      "INSERT INTO \(layout.insertTable) FORMAT JSONEachRow", data: Self.events(10, installs: 3))
    #expect(
      try server.execute("SELECT countMerge(inserts), uniqExactMerge(ids) FROM uptake.report_days")
        == "10\t10\n")
  }

  @Test("events stored before 0009 read their install_key; inserts through events still work")
  func installKeyAdded() throws {
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let layout = try shards.migratedLayout()
    let synchronous = ["insert_distributed_sync": "1"]
    // As before 0009: no install_key on the local tables, and not recorded.
    for server in layout.servers {
      try server.execute("ALTER TABLE uptake.events_local DROP COLUMN install_key")
      try server.execute("DROP TABLE uptake.schema_migrations")
      try server.execute(
        "CREATE TABLE uptake.schema_migrations (name String, applied_ms Int64) ENGINE = TinyLog")
      for name in ClusterSchema.knownMigrations where !name.hasSuffix("events_install_key") {
        try server.execute("INSERT INTO uptake.schema_migrations VALUES ('\(name)', 0)")
      }
    }
    let insert = "INSERT INTO \(layout.insertTable) FORMAT JSONEachRow"
    try layout.servers[0].insert(
      insert, data: Self.events(300, installs: 100), settings: synchronous)

    #expect(try ClusterSchema.migrate(layout, nowMs: Self.nowMs) == 2)

    // Through the Distributed table, which does not declare the column.
    try layout.servers[1].insert(
      insert, data: Self.events(600, installs: 200), settings: synchronous)
    let everyShard = "cluster('\(ClickHouseShards.clusterName)', uptake, events_local)"
    #expect(
      try layout.servers[0].execute(
        "SELECT count(), countIf(install_key = sipHash64(install_id)) FROM \(everyShard)")
        == "900\t900\n")
  }

  @Test(
    "events spread over the shards by install; a batch retried through the other server counts once"
  )
  func sharding() throws {
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let layout = try shards.migratedLayout()
    let batch = Self.events(600, installs: 200)
    let insert = "INSERT INTO \(layout.insertTable) FORMAT JSONEachRow"
    let synchronous = ["insert_distributed_sync": "1"]

    try layout.servers[0].insert(insert, data: batch, settings: synchronous)
    try layout.servers[1].insert(insert, data: batch, settings: synchronous)

    let installsOn = try (0..<2).map { index in
      Set(
        try shards.query(index, "SELECT DISTINCT install_id FROM uptake.events_local")
          .split(separator: "\n"))
    }
    #expect(installsOn[0].count > 50 && installsOn[1].count > 50, "both shards hold installs")
    #expect(installsOn[0].isDisjoint(with: installsOn[1]), "an install lives on one shard")
    #expect(installsOn[0].count + installsOn[1].count == 200)
    for server in layout.servers {
      #expect(try server.execute("SELECT uniqExact(app_id, id) FROM uptake.events") == "600\n")
      #expect(try server.execute("SELECT count() FROM uptake.events FINAL") == "600\n")
    }
  }

  @Test("one server without a cluster: events are its local table")
  func oneServer() throws {
    let shards = try ClickHouseShards(count: 1)
    defer { shards.stopAll() }
    let layout = try shards.migratedLayout(cluster: nil)

    try layout.servers[0].insert(
      "INSERT INTO \(layout.insertTable) FORMAT JSONEachRow", data: Self.events(10, installs: 3))

    #expect(try layout.servers[0].execute("SELECT count() FROM uptake.events") == "10\n")
  }

  @Test("a server that is down, and a statement it refuses, say so")
  func failures() throws {
    let shards = try ClickHouseShards(count: 1)
    let server = ClickHouseServer(url: shards.urls[0], timeoutSeconds: 5)
    #expect(throws: ClickHouseError.self) { try server.execute("SELECT * FROM nowhere.nothing") }
    do {
      try server.execute("SELEC 1")
      Issue.record("a syntax error was accepted")
    } catch {
      guard case .refused(_, let status, let message, _) = error else {
        Issue.record("expected a refusal, got \(error)")
        return
      }
      #expect(status >= 400 && message.contains("Syntax error"))
    }
    shards.stopAll()
    do {
      try server.execute("SELECT 1")
      Issue.record("a stopped server answered")
    } catch {
      guard case .unreachable = error else {
        Issue.record("expected unreachable, got \(error)")
        return
      }
    }
  }
}
