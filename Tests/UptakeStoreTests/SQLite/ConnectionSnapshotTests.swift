import Testing
import UptakeCore
import UptakeStore
import UptakeTestSupport

/// The daemon's writer and the CLI (apps add, import) write the same file
/// through different connections. A connection must not keep a read snapshot
/// open after its own work is done: its next write transaction would fail
/// with SQLITE_BUSY_SNAPSHOT as soon as another connection has committed, and
/// no checkpoint could copy the WAL past that snapshot.
@Suite("Connections: no read snapshot held between transactions")
struct ConnectionSnapshotTests {
  /// What the first connection did before the second one writes.
  enum EarlierWork: String, CaseIterable, CustomTestStringConvertible {
    case migrate, findApp, insertEvents, scalarQuery

    var testDescription: String { rawValue }

    func run(on database: Database, app: Int64) throws {
      switch self {
      case .migrate: try Migrator.migrate(database)
      case .findApp: _ = try AppRegistry.find("shop", in: database)
      case .insertEvents:
        _ = try EventInserter(database: database).insert([batch(app, events(ids: ["first"]))])
      case .scalarQuery: _ = try database.scalarInt("SELECT count(*) FROM apps")
      }
    }
  }

  @Test(
    "a connection can write after another connection committed, whatever it ran before",
    arguments: EarlierWork.allCases)
  func writeAfterAnotherConnectionCommitted(earlier: EarlierWork) throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let daemon = try scratch.openDatabase()
    let app = try daemon.addApp("shop")
    try earlier.run(on: daemon, app: app)

    let cli = try Database(path: scratch.databasePath)
    _ = try AppRegistry.add("news", in: cli, nowMs: 0)

    let outcome = try EventInserter(database: daemon).insert([batch(app, events(ids: ["second"]))])
    #expect(outcome == [InsertOutcome(accepted: 1)])
  }

  @Test(
    "while one connection keeps inserting, the WAL can be checkpointed up to its last commit")
  func walIsCheckpointed() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let writer = try scratch.openDatabase()
    let app = try writer.addApp("shop")
    let inserter = EventInserter(database: writer)
    for batchNumber in 0..<20 {
      let ids = (0..<1_000).map { "b\(batchNumber)-\($0)" }
      _ = try inserter.insert([batch(app, events(ids: ids))])
    }

    let checkpointer = try Database(path: scratch.databasePath)
    let checkpoint = try checkpointer.statement("PRAGMA wal_checkpoint(PASSIVE)")
    #expect(try checkpoint.step())
    let (busy, walFrames, checkpointedFrames) = (
      checkpoint.int(0), checkpoint.int(1), checkpoint.int(2)
    )
    checkpoint.reset()

    #expect(busy == 0)
    #expect(walFrames > 0)
    #expect(
      checkpointedFrames == walFrames, "every committed frame can be copied into the database")
  }
}
