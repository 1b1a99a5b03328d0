import UptakeCore

/// Stores update configurations with their history: every put adds a
/// version, and an app's highest version is the live one.
public enum UpdateConfigStore {
  /// Stores `configuration` as the app's next version, which is live once
  /// this returns (one transaction: a reader sees the old or the new whole).
  @discardableResult
  public static func put(
    _ configuration: UpdateConfiguration, appNo: Int64, in database: Database, nowMs: Int64
  ) throws(StoreError) -> Int64 {
    try database.write { () throws(StoreError) -> Int64 in
      let next = try database.statement(
        "SELECT coalesce(max(version), 0) + 1 FROM update_configs WHERE app_no = ?")
      try next.bind(1, appNo)
      defer { next.reset() }
      guard try next.step() else { return 1 }
      let version = next.int64(0)
      let insert = try database.statement(
        "INSERT INTO update_configs (app_no, version, created_at, document) VALUES (?, ?, ?, ?)")
      try insert.bind(1, appNo)
      try insert.bind(2, version)
      try insert.bind(3, nowMs)
      try insert.bind(4, configuration.documentText)
      try insert.run()
      return version
    }
  }

  /// The app's live configuration, nil when it has none.
  public static func live(appNo: Int64, in database: Database) throws(StoreError)
    -> StoredUpdateConfiguration?
  {
    let statement = try database.statement(
      """
      SELECT version, created_at, document FROM update_configs
      WHERE app_no = ? ORDER BY version DESC LIMIT 1
      """)
    try statement.bind(1, appNo)
    return try row(of: statement, appNo: appNo)
  }

  /// One version of the app's configuration, nil when there is no such version.
  public static func version(_ version: Int64, appNo: Int64, in database: Database)
    throws(StoreError) -> StoredUpdateConfiguration?
  {
    let statement = try database.statement(
      "SELECT version, created_at, document FROM update_configs WHERE app_no = ? AND version = ?")
    try statement.bind(1, appNo)
    try statement.bind(2, version)
    return try row(of: statement, appNo: appNo)
  }

  /// Every version of the app's configuration, oldest first.
  public static func history(appNo: Int64, in database: Database) throws(StoreError)
    -> [StoredUpdateConfiguration]
  {
    let statement = try database.statement(
      "SELECT version, created_at, document FROM update_configs WHERE app_no = ? ORDER BY version")
    try statement.bind(1, appNo)
    var rows: [StoredUpdateConfiguration] = []
    while try statement.step() {
      rows.append(
        StoredUpdateConfiguration(
          appNo: appNo, version: statement.int64(0), createdAtMs: statement.int64(1),
          documentText: statement.string(2)))
    }
    return rows
  }

  /// The live version number of every app that has a configuration.
  public static func liveVersions(in database: Database) throws(StoreError) -> [Int64: Int64] {
    let statement = try database.statement(
      "SELECT app_no, max(version) FROM update_configs GROUP BY app_no")
    var versions: [Int64: Int64] = [:]
    while try statement.step() { versions[statement.int64(0)] = statement.int64(1) }
    return versions
  }

  /// The live configuration's entry for `updateId`, nil when none has that
  /// update id. Its `latestVersion` is the funnel's target (an install
  /// counts as upgraded once it reaches it); its `appStore`, the countries
  /// of the store lag the update's reports show.
  public static func liveEntry(appNo: Int64, updateId: String, in database: Database)
    throws(StoreError) -> UpdateEntry?
  {
    try live(appNo: appNo, in: database)?.configuration?.entry(updateId: updateId)
  }

  private static func row(of statement: Statement, appNo: Int64) throws(StoreError)
    -> StoredUpdateConfiguration?
  {
    defer { statement.reset() }
    guard try statement.step() else { return nil }
    return StoredUpdateConfiguration(
      appNo: appNo, version: statement.int64(0), createdAtMs: statement.int64(1),
      documentText: statement.string(2))
  }
}
