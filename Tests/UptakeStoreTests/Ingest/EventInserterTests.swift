import Testing
import UptakeCore
import UptakeStore
import UptakeTestSupport

@Suite("EventInserter: stores events once per id and app")
struct EventInserterTests {
  @Test("stores every event of a batch and counts it as accepted")
  func storesEvents() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let inserter = EventInserter(database: database)

    let outcomes = try inserter.insert([batch(app, events(ids: ["a", "b", "c"]))])

    #expect(outcomes == [InsertOutcome(accepted: 3, duplicates: 0)])
    #expect(try database.storedEventCount() == 3)
  }

  @Test("stores the fields of an event as given")
  func storesFields() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let stored = Event(
      id: "e-1", updateId: "782000001589015", action: .later, appVersion: "2.9.1",
      installId: "install-1", timestampMs: ms("2026-03-10T08:30:00.250Z"), osVersion: "17.4",
      platform: .ios, previousAppVersion: "2.8.0", isTest: true)

    _ = try EventInserter(database: database).insert([batch(app, [stored])])

    let row = try database.statement(
      """
      SELECT app_no, client_id, update_id, action, app_version, install_id, ts, os_version,
        platform, previous_app_version, is_test FROM events
      """)
    #expect(try row.step())
    #expect(row.int64(0) == app)
    #expect(row.string(1) == "e-1")
    #expect(row.string(2) == "782000001589015")
    #expect(row.int(3) == Action.later.rawValue)
    #expect(row.string(4) == "2.9.1")
    #expect(row.string(5) == "install-1")
    #expect(row.int64(6) == ms("2026-03-10T08:30:00.250Z"))
    #expect(row.string(7) == "17.4")
    #expect(row.string(8) == "ios")
    #expect(row.string(9) == "2.8.0")
    #expect(row.int(10) == 1)
    #expect(try !row.step())
  }

  @Test("an id repeated within one batch is stored once")
  func duplicateWithinBatch() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")

    let outcomes = try EventInserter(database: database).insert([
      batch(app, events(ids: ["a", "b", "a", "a"]))
    ])

    #expect(outcomes == [InsertOutcome(accepted: 2, duplicates: 2)])
    #expect(try database.storedEventCount() == 2)
  }

  @Test("an id seen in an earlier batch of the same transaction is a duplicate")
  func duplicateAcrossBatchesOfOneTransaction() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")

    let outcomes = try EventInserter(database: database).insert([
      batch(app, events(ids: ["a", "b"])), batch(app, events(ids: ["b", "c"])),
    ])

    #expect(
      outcomes == [
        InsertOutcome(accepted: 2, duplicates: 0), InsertOutcome(accepted: 1, duplicates: 1),
      ])
    #expect(try database.storedEventCount() == 3)
  }

  @Test("the ids of a transaction that failed are not duplicates when sent again")
  func failedTransactionLeavesNoKeys() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let inserter = EventInserter(database: database)
    _ = try inserter.insert([batch(app, events(ids: ["before"]))])
    try database.execute(
      """
      CREATE TEMP TRIGGER refuse_boom BEFORE INSERT ON events WHEN NEW.client_id = 'boom'
      BEGIN SELECT RAISE(ABORT, 'refused'); END
      """)

    #expect(throws: StoreError.self) {
      try inserter.insert([batch(app, events(ids: ["a", "b"])), batch(app, events(ids: ["boom"]))])
    }
    try database.execute("DROP TRIGGER refuse_boom")
    let retried = try inserter.insert([batch(app, events(ids: ["a", "b", "before"]))])

    #expect(retried == [InsertOutcome(accepted: 2, duplicates: 1)])
    #expect(try database.storedEventCount() == 3)
  }

  @Test("a retried batch is all duplicates")
  func retriedBatch() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let inserter = EventInserter(database: database)
    let sent = batch(app, events(ids: ["a", "b", "c"]))

    _ = try inserter.insert([sent])
    let retried = try inserter.insert([sent])

    #expect(retried == [InsertOutcome(accepted: 0, duplicates: 3)])
    #expect(try database.storedEventCount() == 3)
  }

  @Test(
    "ids stored by another connection's inserter are duplicates, both ways")
  func duplicateAcrossConnections() throws {
    // The daemon's batch writer and a CLI import write the same file, each
    // through its own connection and inserter.
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let daemonConnection = try scratch.openDatabase()
    let importConnection = try scratch.openDatabase()
    let app = try daemonConnection.addApp("shop")
    let daemon = EventInserter(database: daemonConnection)
    let importer = EventInserter(database: importConnection)

    #expect(
      try daemon.insert([batch(app, events(ids: ["a", "b"]))]) == [InsertOutcome(accepted: 2)])
    #expect(
      try importer.insert([batch(app, events(ids: ["b", "c"]))])
        == [InsertOutcome(accepted: 1, duplicates: 1)])
    #expect(
      try daemon.insert([batch(app, events(ids: ["c", "d"]))])
        == [InsertOutcome(accepted: 1, duplicates: 1)])
    #expect(
      try importer.insert([batch(app, events(ids: ["a", "d", "e"]))])
        == [InsertOutcome(accepted: 1, duplicates: 2)])
    #expect(try daemonConnection.storedEventCount() == 5)
  }

  @Test("ids stored before a restart are duplicates after it")
  func duplicateAfterReopen() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    var app: Int64 = 0
    do {
      let database = try scratch.openDatabase()
      app = try database.addApp("shop")
      _ = try EventInserter(database: database).insert([batch(app, events(ids: ["a", "b"]))])
    }

    let reopened = try scratch.openDatabase()
    let outcomes = try EventInserter(database: reopened).insert([
      batch(app, events(ids: ["b", "a", "c"]))
    ])

    #expect(outcomes == [InsertOutcome(accepted: 1, duplicates: 2)])
    #expect(try reopened.storedEventCount() == 3)
  }

  @Test("events without an id are never duplicates")
  func eventsWithoutIdAreAlwaysStored() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let inserter = EventInserter(database: database)
    let anonymous = batch(app, events(ids: [nil, nil, "a", nil]))

    #expect(try inserter.insert([anonymous]) == [InsertOutcome(accepted: 4)])
    #expect(try inserter.insert([anonymous]) == [InsertOutcome(accepted: 3, duplicates: 1)])
    #expect(try database.storedEventCount() == 7)
  }

  @Test("the same id in two apps is stored for each")
  func deduplicationIsPerApp() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let shop = try database.addApp("shop")
    let news = try database.addApp("news")
    let inserter = EventInserter(database: database)

    let together = try inserter.insert([
      batch(shop, events(ids: ["a"])), batch(news, events(ids: ["a"])),
    ])
    let again = try inserter.insert([batch(news, events(ids: ["a", "b"]))])

    #expect(together == [InsertOutcome(accepted: 1), InsertOutcome(accepted: 1)])
    #expect(again == [InsertOutcome(accepted: 1, duplicates: 1)])
    #expect(try database.storedEventCount() == 3)
  }
}
