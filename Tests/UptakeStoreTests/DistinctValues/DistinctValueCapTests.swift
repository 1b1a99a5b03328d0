import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

@Suite("EventInserter: the cap on distinct values per day counts what is stored")
struct DistinctValueCapTests {
  /// Noon two days ago: inside the days an event may be stored on.
  let noon = (Timestamp.dayNumber(ms: WallClock.nowMs()) - 2) * Timestamp.msPerDay + 43_200_000

  private func versions(_ names: [String], id: String = "e") -> [Event] {
    names.enumerated().map { index, name in
      Event(
        id: "\(id)-\(index)", updateId: "u1", action: .impression, appVersion: name,
        timestampMs: noon)
    }
  }

  private func store(_ inserter: EventInserter, _ app: Int64, _ events: [Event]) throws
    -> InsertOutcome
  {
    try inserter.insert([EventBatch(appNo: app, events: events, receivedAtMs: noon)])[0]
  }

  @Test("the index of a rejection is the event's place in its batch")
  func rejectionIndexes() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let inserter = EventInserter(database: database, maxDistinctPerDay: 2)

    let outcome = try store(inserter, app, versions(["1", "2", "3", "1", "4"]))

    #expect(outcome.accepted == 3)
    #expect(outcome.rejected.map(\.index) == [2, 4])
    #expect(try database.storedEventCount() == 3)
  }

  @Test("a new inserter counts the stored events, folded and not", arguments: [0, 2, 3])
  func countsStoredEvents(folded: Int) throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    #expect(
      try store(EventInserter(database: database), app, versions(["1", "2", "3"])).accepted == 3)
    if folded > 0 { try RollupFolder(database: database).fold(maxEvents: folded) }

    let restarted = EventInserter(database: database, maxDistinctPerDay: 3)
    let loaded = try restarted.loadDistinctValues()
    #expect(loaded.tailEvents == 3 - folded)

    let outcome = try store(restarted, app, versions(["3", "4", "1"], id: "again"))
    #expect(outcome.accepted == 2)
    #expect(outcome.rejected.map(\.index) == [1])
  }

  @Test("events another connection stored meanwhile (an import beside the daemon) count")
  func countsOtherWriters() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let daemon = EventInserter(database: database, maxDistinctPerDay: 3)
    try daemon.loadDistinctValues()
    let importer = EventInserter(database: try scratch.openDatabase(), maxDistinctPerDay: 3)

    #expect(try store(importer, app, versions(["1", "2", "3"], id: "import")).accepted == 3)

    #expect(try store(daemon, app, versions(["4"])).rejected.count == 1)
  }

  @Test("a batch whose commit fails leaves none of its values counted")
  func failedCommitCountsNothing() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let inserter = EventInserter(database: database, maxDistinctPerDay: 3)
    try inserter.loadDistinctValues()
    // Enough rows to need new pages, in a file that may not grow.
    let large = (0..<20_000).map { index in
      Event(
        id: "large-\(index)", updateId: "u1", action: .impression, appVersion: "\(index % 3)",
        installId: "\(index)" + String(repeating: "i", count: 60), timestampMs: noon)
    }
    try database.limitSize(toBytes: 1)

    #expect(throws: StoreError.self) { try store(inserter, app, large) }

    try database.execute("PRAGMA main.max_page_count = 1000000000")
    #expect(try store(inserter, app, versions(["a", "b", "c"])).accepted == 3)
  }
}
