import Foundation
import Testing
import UptakeStore
import UptakeTestSupport

@Suite("Migrator: schema migrations applied once, in order, recorded by name")
struct MigratorTests {
  @Test("a new database gets every known migration, each recorded by its name")
  func freshDatabaseGetsEveryMigration() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try Database(path: scratch.databasePath)

    let applied = try Migrator.migrate(database)

    #expect(applied == Migrator.knownMigrations)
    #expect(applied.first == "0001_initial")
    #expect(try Migrator.appliedMigrations(database) == Migrator.knownMigrations)
    let tables = try database.scalarInt(
      """
      SELECT count(*) FROM sqlite_master WHERE type = 'table'
        AND name IN ('apps', 'events', 'dedup_blocks', 'store_state', 'schema_migrations')
      """)
    #expect(tables == 5)
  }

  @Test("migrating again, on the same or a new connection, applies nothing")
  func secondRunAppliesNothing() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try Database(path: scratch.databasePath)
    try Migrator.migrate(database)

    #expect(try Migrator.migrate(database) == [])
    let reopened = try Database(path: scratch.databasePath)
    #expect(try Migrator.migrate(reopened) == [])
    #expect(try Migrator.appliedMigrations(reopened) == Migrator.knownMigrations)
  }

  @Test("two connections migrating at once apply each migration exactly once")
  func concurrentMigrationsApplyEachOnce() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let path = scratch.databasePath
    let results = MigrationResults()

    DispatchQueue.concurrentPerform(iterations: 2) { index in
      results.record(index, Result { try Migrator.migrate(try Database(path: path)) })
    }

    let applied = try results.all.flatMap { try $0.get() }
    #expect(applied.sorted() == Migrator.knownMigrations)
    #expect(try Migrator.appliedMigrations(Database(path: path)) == Migrator.knownMigrations)
  }

  @Test("a database with a migration this build does not know is refused")
  func newerDatabaseIsRefused() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    try database.execute(
      "INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_from_a_newer_build', 0)")

    let reopened = try Database(path: scratch.databasePath)
    let error = #expect(throws: StoreError.self) { try Migrator.migrate(reopened) }

    guard case .migration(let name, let message)? = error else {
      Issue.record("expected a migration error, got \(String(describing: error))")
      return
    }
    #expect(name == "9999_from_a_newer_build")
    #expect(message == "the database is newer than this build; upgrade Uptake")
  }
}

/// Results of migrations run on several threads at once.
private final class MigrationResults: @unchecked Sendable {
  private let lock = NSLock()
  private var results: [Int: Result<[String], any Error>] = [:]

  func record(_ index: Int, _ result: Result<[String], any Error>) {
    lock.withLock { results[index] = result }
  }

  var all: [Result<[String], any Error>] {
    lock.withLock { results.keys.sorted().compactMap { results[$0] } }
  }
}
