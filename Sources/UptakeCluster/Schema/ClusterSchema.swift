import Foundation

/// Creates or migrates the ClickHouse schema on every server of a layout,
/// idempotently: each server records the migrations it has run in
/// `schema_migrations`, every statement is `IF NOT EXISTS`, and two nodes
/// starting at once may both run one, to the same end. Distributed DDL
/// (`ON CLUSTER`) would need ZooKeeper, which a cluster of plain shards
/// does not have, so each server is migrated in turn.
public enum ClusterSchema {
  /// The migrations' names, in order: schema/clickhouse/NNNN_name.sql.
  public static var knownMigrations: [String] { embeddedClusterMigrations.map(\.name) }

  /// Runs every migration a server has not recorded, server by server.
  /// Returns how many ran, all servers together.
  @discardableResult
  public static func migrate(_ layout: ClusterLayout, nowMs: Int64) throws(ClickHouseError) -> Int {
    var ran = 0
    for server in layout.servers {
      try server.execute("CREATE DATABASE IF NOT EXISTS \(layout.database)")
      try server.execute(
        """
        CREATE TABLE IF NOT EXISTS \(layout.database).schema_migrations
        (name String, applied_ms Int64) ENGINE = TinyLog
        """)
      let recorded = Set(
        try server.execute("SELECT name FROM \(layout.database).schema_migrations")
          .split(separator: "\n").map(String.init))
      for migration in embeddedClusterMigrations where !recorded.contains(migration.name) {
        for statement in statements(of: migration.text, in: layout) {
          if try hasColumn(addedBy: statement, on: server) { continue }
          try server.execute(statement)
        }
        try server.execute(
          "INSERT INTO \(layout.database).schema_migrations VALUES ('\(migration.name)', \(nowMs))")
        ran += 1
      }
    }
    return ran
  }

  /// Whether `statement` is an `ALTER TABLE db.table ADD COLUMN name …`
  /// whose table has that column already: 18.16 has no `ADD COLUMN IF NOT
  /// EXISTS`, and a migration that stopped after its ALTER runs again.
  static func hasColumn(addedBy statement: String, on server: ClickHouseServer)
    throws(ClickHouseError) -> Bool
  {
    let words = statement.split(whereSeparator: \.isWhitespace)
    guard words.count >= 6, words[0] == "ALTER", words[1] == "TABLE", words[3] == "ADD",
      words[4] == "COLUMN"
    else { return false }
    let table = words[2].split(separator: ".", maxSplits: 1)
    guard table.count == 2 else { return false }
    let found = try server.execute(
      """
      SELECT count() FROM system.columns
      WHERE database = '\(table[0])' AND table = '\(table[1])' AND name = '\(words[5])'
      """)
    return found.trimmingCharacters(in: .whitespacesAndNewlines) != "0"
  }

  /// Asks every server `SELECT 1`: whether the whole layout answers.
  public static func probe(_ layout: ClusterLayout) throws(ClickHouseError) {
    for server in layout.servers { try server.execute("SELECT 1") }
  }

  /// A migration's statements, comments left out and the layout's names
  /// filled in. Statements end with `;` at the end of a line.
  static func statements(of text: String, in layout: ClusterLayout) -> [String] {
    let code = text.split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }
      .joined(separator: "\n")
    return code.components(separatedBy: ";\n")
      .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
      .map { $0.hasSuffix(";") ? String($0.dropLast()) : $0 }
      .filter { !$0.isEmpty }
      .map {
        $0.replacingOccurrences(of: "{database}", with: layout.database)
          .replacingOccurrences(of: "{events_engine}", with: layout.eventsEngine)
          .replacingOccurrences(
            of: "{report_hours_engine}", with: layout.readEngine(over: "report_hours_local")
          )
          .replacingOccurrences(
            of: "{report_days_engine}", with: layout.readEngine(over: "report_days_local")
          )
          .replacingOccurrences(
            of: "{report_day_installs_engine}",
            with: layout.readEngine(over: "report_day_installs_local"))
      }
  }
}
