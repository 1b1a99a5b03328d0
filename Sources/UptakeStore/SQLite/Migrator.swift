/// Applies the migrations of schema/ (embedded at build time) in name order.
/// Each runs in its own BEGIN IMMEDIATE transaction that also records its
/// name, so a crash leaves the schema at a migration boundary, and two
/// processes starting at once apply each migration exactly once.
public enum Migrator {
  /// The names of all migrations this build knows, in order.
  public static var knownMigrations: [String] { embeddedMigrations.map(\.name) }

  /// Brings the database up to date; returns the names it applied.
  @discardableResult
  public static func migrate(_ database: Database) throws(StoreError) -> [String] {
    try database.execute(
      "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)"
    )
    var applied: [String] = []
    // Read first: a command on an up-to-date database takes no write lock,
    // which would wait for the daemon's fold and hold its inserts meanwhile.
    let recorded = Set(try appliedMigrations(database))
    for migration in embeddedMigrations where !recorded.contains(migration.name) {
      let didApply = try database.write { () throws(StoreError) -> Bool in
        let existing = try database.statement("SELECT 1 FROM schema_migrations WHERE name = ?")
        try existing.bind(1, migration.name)
        defer { existing.reset() }
        if try existing.step() { return false }
        do throws(StoreError) {
          try database.execute(migration.text)
        } catch {
          throw .migration(name: migration.name, message: error.description)
        }
        let record = try database.statement(
          "INSERT INTO schema_migrations (name, applied_at) VALUES (?, unixepoch())")
        try record.bind(1, migration.name)
        try record.run()
        return true
      }
      if didApply { applied.append(migration.name) }
    }
    let unknown = try appliedMigrations(database).filter { !knownMigrations.contains($0) }
    if let newest = unknown.first {
      throw .migration(
        name: newest, message: "the database is newer than this build; upgrade Uptake")
    }
    if database.hasRollups { database.rollupsPlacement = try RollupsFile.place(database) }
    return applied
  }

  /// The names recorded as applied.
  public static func appliedMigrations(_ database: Database) throws(StoreError) -> [String] {
    let statement = try database.statement("SELECT name FROM schema_migrations ORDER BY name")
    var names: [String] = []
    while try statement.step() { names.append(statement.string(0)) }
    return names
  }
}
