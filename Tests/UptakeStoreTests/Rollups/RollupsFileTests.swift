import Foundation
import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

/// The aggregates' own file (`RollupsFile`): moved there from a database
/// from before it, and built again from the events whenever it cannot
/// serve.
@Suite("The rollups file")
struct RollupsFileTests {
  /// Events over three days and updates, with repeats, and an upgrade a
  /// day for every install.
  static func events() -> [Event] {
    (0..<300).map { number in
      let day = number / 7 % 3
      return event(
        updateId: "u\(number % 3)", action: Action(rawValue: number % 4)!,
        appVersion: "1.\(day).0", installId: "i\(number % 35)",
        at: String(format: "2026-03-%02dT%02d:00:00Z", 10 + day, number % 24))
    }
  }

  /// The reports that read the aggregates, as text.
  static func reports(_ database: Database, _ appNo: Int64) throws -> [String] {
    let queries = ReportQueries(database: database)
    let range = DayRange(
      fromDay: Timestamp.dayNumber(ms: ms("2026-03-09T00:00:00Z")),
      toDay: Timestamp.dayNumber(ms: ms("2026-03-13T00:00:00Z")))
    return [
      "\(try queries.updates(appNo: appNo, range: range, test: .exclude))",
      "\(try queries.update(appNo: appNo, updateId: "u1", range: range, test: .exclude))",
      "\(try queries.adoption(appNo: appNo, range: range, test: .exclude))",
      "\(try queries.funnel(appNo: appNo, updateId: "u2", range: range, test: .exclude, targetVersion: "1.2.0"))",
      "\(try queries.grouped(appNo: appNo, keys: [.date, .appVersion, .action], granularity: .day, range: range, test: .include))",
    ]
  }

  /// A scratch store with the events stored and folded, and its reports.
  static func folded(_ scratch: ScratchDirectory) throws -> (ShopStore, [String]) {
    let shop = try ShopStore(scratch)
    _ = try shop.store(events())
    try shop.folder.foldAll()
    let reports = try reports(shop.database, shop.appNo)
    // Comparing empty reports would prove nothing.
    #expect(reports[0].contains("u1") && reports[2].contains("1.1.0"), "\(reports)")
    #expect(!reports[3].contains("downloads: 0"), "\(reports[3])")
    return (shop, reports)
  }

  static func tables(_ database: Database, in schema: String) throws -> Set<String> {
    let statement = try database.statement(
      "SELECT name FROM \(schema).sqlite_master WHERE type = 'table'")
    var names: Set<String> = []
    while try statement.step() { names.insert(statement.string(0)) }
    statement.reset()
    return names.intersection(RollupsFile.tables + ["fold_state"])
  }

  @Test("a new database keeps its aggregates in the rollups file, none in the events file")
  func newDatabase() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    #expect(database.rollupsPlacement == .created, "the migrations create them in the events file")
    #expect(try Self.tables(database, in: "main").isEmpty)
    #expect(try Self.tables(database, in: "rollups") == Set(RollupsFile.tables + ["fold_state"]))
    #expect(FileManager.default.fileExists(atPath: Database.rollupsPath(for: scratch.databasePath)))
    let again = try Database(path: scratch.databasePath)
    try Migrator.migrate(again)
    #expect(again.rollupsPlacement == .ready)
  }

  @Test("a database from before the rollups file: its aggregates move, and read the same")
  func databaseFromBefore() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let (shop, before) = try Self.folded(scratch)
    try shop.database.putRollupsBackInEventsFile()
    #expect(try Self.tables(shop.database, in: "rollups").isEmpty)

    let reopened = try Database(path: scratch.databasePath)
    try Migrator.migrate(reopened)
    #expect(reopened.rollupsPlacement == .moved)
    #expect(try Self.tables(reopened, in: "main").isEmpty)
    #expect(try Self.reports(reopened, shop.appNo) == before)
    // Nothing is folded twice: the folded seq moved with the tables.
    #expect(try RollupFolder(database: reopened).fold(maxEvents: 50_000) == 0)
    #expect(try Self.reports(reopened, shop.appNo) == before)
  }

  @Test("a migration that changes what the rollups hold has them folded again, once")
  func refoldAfterMigration() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let (shop, before) = try Self.folded(scratch)
    // What schema/0016 leaves behind on a database folded before it.
    try shop.database.execute(
      "INSERT INTO store_state (name, value) VALUES ('\(RollupsFile.refoldName)', 1)")

    let reopened = try Database(path: scratch.databasePath)
    try Migrator.migrate(reopened)
    #expect(
      reopened.rollupsPlacement == .rebuilt(reason: "a migration changed what the rollups hold"))
    #expect(try RollupFolder(database: reopened).foldAll() == Self.events().count)
    #expect(try Self.reports(reopened, shop.appNo) == before)

    let again = try Database(path: scratch.databasePath)
    try Migrator.migrate(again)
    #expect(again.rollupsPlacement == .ready, "the marker is gone with the refold")
  }

  @Test(
    "a lost, foreign or too new rollups file is emptied, and folding the events again restores it",
    arguments: ["lost", "foreign", "ahead"])
  func rebuilt(_ damage: String) throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let (shop, before) = try Self.folded(scratch)
    let rollupsPath = Database.rollupsPath(for: scratch.databasePath)
    switch damage {
    case "lost":
      for suffix in ["", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: rollupsPath + suffix)
      }
    case "foreign":
      // Another database's rollups file copied over this one's.
      let other = try ScratchDirectory()
      defer { other.remove() }
      _ = try Self.folded(other)
      try shop.database.execute("DETACH DATABASE rollups")
      for suffix in ["-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: rollupsPath + suffix)
      }
      try FileManager.default.removeItem(atPath: rollupsPath)
      let copy = try Database(path: other.databasePath)
      try copy.execute("PRAGMA rollups.wal_checkpoint(TRUNCATE)")
      try FileManager.default.copyItem(
        atPath: Database.rollupsPath(for: other.databasePath), toPath: rollupsPath)
    default:
      // The events file restored from before the last events were stored.
      try shop.database.execute("DELETE FROM events WHERE seq > 250")
    }

    let reopened = try Database(path: scratch.databasePath)
    try Migrator.migrate(reopened)
    guard case .rebuilt = reopened.rollupsPlacement else {
      Issue.record("\(damage): \(String(describing: reopened.rollupsPlacement))")
      return
    }
    #expect(try RollupFolder.foldedSeq(reopened) == 0)
    // Exact before the fold too: reports add what is not folded.
    let expected = damage == "ahead" ? try Self.referenceReports(scratch, events: 250) : before
    #expect(try Self.reports(reopened, shop.appNo) == expected)
    try RollupFolder(database: reopened).foldAll()
    #expect(try Self.reports(reopened, shop.appNo) == expected)
  }

  @Test(
    "a rollups file written unsynced when the machine went down is deleted, even unreadable, and built again"
  )
  func unsyncedWhenTheMachineWentDown() throws {
    let boot = try #require(UnsyncedRollups.currentBoot, "Linux has a boot id")
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let (shop, before) = try Self.folded(scratch)
    let rollupsPath = Database.rollupsPath(for: scratch.databasePath)
    try shop.database.execute("DETACH DATABASE rollups")
    // The daemon's record from a boot that has ended.
    try shop.database.execute(
      """
      INSERT OR REPLACE INTO store_state (name, value)
      VALUES ('\(UnsyncedRollups.stateName)', \(boot &+ 1))
      """)
    // What a power cut can leave: pages that are not SQLite's.
    let file = try #require(FileHandle(forWritingAtPath: rollupsPath))
    file.write(Data(repeating: 0xA5, count: 64 * 1024))
    try file.close()

    let reopened = try Database(path: scratch.databasePath)
    try Migrator.migrate(reopened)
    #expect(reopened.rollupsPlacement == .rebuilt(reason: UnsyncedRollups.discardReason))
    // What is built now is unsynced in this boot until a clean stop.
    #expect(
      try reopened.scalarInt(
        "SELECT value FROM store_state WHERE name = '\(UnsyncedRollups.stateName)'") == boot)
    #expect(try Self.reports(reopened, shop.appNo) == before)
    try RollupFolder(database: reopened).foldAll()
    #expect(try Self.reports(reopened, shop.appNo) == before)
    let again = try Database(path: scratch.databasePath)
    try Migrator.migrate(again)
    #expect(again.rollupsPlacement == .ready, "the record is this boot's now")
  }

  @Test("a rollups file recorded unsynced in the running boot serves as it is")
  func unsyncedInThisBoot() throws {
    let boot = try #require(UnsyncedRollups.currentBoot, "Linux has a boot id")
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let (shop, before) = try Self.folded(scratch)
    try shop.database.execute(
      """
      INSERT OR REPLACE INTO store_state (name, value)
      VALUES ('\(UnsyncedRollups.stateName)', \(boot))
      """)
    let reopened = try Database(path: scratch.databasePath)
    try Migrator.migrate(reopened)
    #expect(reopened.rollupsPlacement == .ready)
    #expect(try RollupFolder.foldedSeq(reopened) > 0)
    #expect(try Self.reports(reopened, shop.appNo) == before)
  }

  /// The reports of a database holding only the first `events` events.
  static func referenceReports(_ scratch: ScratchDirectory, events count: Int) throws -> [String] {
    let reference = try ScratchDirectory()
    defer { reference.remove() }
    let shop = try ShopStore(reference)
    _ = try shop.store(Array(events().prefix(count)))
    try shop.folder.foldAll()
    return try reports(shop.database, shop.appNo)
  }

  @Test("a rollups file made by root belongs to the events file's owner, with its mode")
  func ownerOfANewRollupsFile() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    // The daemon's user owns the events file; a root command upgrades it.
    _ = try Database(path: scratch.databasePath, rollups: false)
    let nobody: uid_t = 65534
    guard geteuid() == 0, chown(scratch.databasePath, nobody, nobody) == 0 else { return }
    #expect(chmod(scratch.databasePath, 0o640) == 0)
    let database = try Database(path: scratch.databasePath)
    try Migrator.migrate(database)
    var rollups = stat()
    #expect(stat(Database.rollupsPath(for: scratch.databasePath), &rollups) == 0)
    #expect(rollups.st_uid == nobody && rollups.st_gid == nobody)
    #expect(rollups.st_mode & 0o777 == 0o640)
  }

  @Test("opening an up-to-date database takes no write lock, so a command never holds ingest")
  func upToDateTakesNoWriteLock() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    _ = try scratch.openDatabase()
    // The daemon's writer and fold hold both files' write locks.
    let holder = try Database(path: scratch.databasePath)
    try holder.execute("BEGIN IMMEDIATE")
    defer { try? holder.execute("ROLLBACK") }
    let started = Date()
    let command = try Database(path: scratch.databasePath)
    #expect(try Migrator.migrate(command).isEmpty)
    #expect(command.rollupsPlacement == .ready)
    // A write lock would have waited out the 5 s busy timeout and failed.
    #expect(Date().timeIntervalSince(started) < 2)
  }
}
