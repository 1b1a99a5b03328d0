import Foundation
import Testing
import UptakeCore
import UptakeDataGen
import UptakeTestSupport

@testable import UptakeStore

/// A fold read and sorted on a connection of its own while events keep
/// being stored (how the fold thread reads a step), written later: the
/// aggregates must be the very rows a fold done in place writes.
@Suite("Folds prepared beside the inserts")
struct PreparedFoldTests {
  /// Reads the next fold of up to `maxEvents` events on `connection`.
  static func prepare(_ connection: Database, maxEvents: Int) throws -> PreparedFold {
    let fold = try connection.read { () throws(StoreError) -> PreparedFold? in
      try RollupWriter.prepare(connection, maxEvents: maxEvents)
    }
    return try #require(fold)
  }

  /// Four slices of a simulated month, installs in generation order, so
  /// each fold has new installs, installs seen before and new versions.
  static func slices() -> [[Event]] {
    var parameters = EventSimulation.Parameters()
    parameters.seed = 29
    parameters.installs = 400
    parameters.updates = 6
    parameters.days = 30
    parameters.endMs = ms("2026-03-31T00:00:00Z")
    parameters.testShare = 0.05
    var events: [Event] = []
    EventSimulation(parameters).generate { events.append($0) }
    let size = (events.count + 3) / 4
    return stride(from: 0, to: events.count, by: size).map {
      Array(events[$0..<min(events.count, $0 + size)])
    }
  }

  /// Every aggregate table, each row as text, in key order.
  static func aggregates(_ database: Database) throws -> [String: [String]] {
    let tables = RollupsFile.tables + ["fold_state"]
    var dump: [String: [String]] = [:]
    for table in tables {
      var columns: [String] = []
      let info = try database.statement("SELECT name FROM pragma_table_info(?)")
      try info.bind(1, table)
      while try info.step() { columns.append(info.string(0)) }
      info.reset()
      #expect(!columns.isEmpty, "table \(table) exists")
      let row = columns.map { "quote(\($0))" }.joined(separator: " || '|' || ")
      // Each database has an identity of its own.
      let filter = table == "fold_state" ? " WHERE name <> 'database_id'" : ""
      let rows = try database.statement("SELECT \(row) FROM \(table)\(filter) ORDER BY 1")
      while try rows.step() { dump[table, default: []].append(rows.string(0)) }
      rows.reset()
    }
    return dump
  }

  @Test("a fold prepared while more events are stored writes what a fold in place writes")
  func preparedBesideInserts() throws {
    let slices = Self.slices()
    let inPlace = try ScratchDirectory()
    let prepared = try ScratchDirectory()
    defer {
      inPlace.remove()
      prepared.remove()
    }

    // In place: each slice stored, then folded exactly.
    let plain = try ShopStore(inPlace)
    for slice in slices {
      let stored = try plain.store(slice)
      #expect(try plain.folder.fold(maxEvents: stored) == stored)
    }

    // Prepared: slice n is read and sorted on a connection of its own,
    // slice n + 1 is stored, then slice n is written.
    let shop = try ShopStore(prepared)
    let reader = try Database(path: prepared.databasePath, create: false)
    var unfolded = try shop.store(slices[0])
    for next in slices.dropFirst() + [[]] {
      let fold = try Self.prepare(reader, maxEvents: unfolded)
      let stored = next.isEmpty ? 0 : try shop.store(next)
      #expect(fold.count == unfolded)
      #expect(try shop.folder.fold(fold) == unfolded)
      unfolded = stored
    }
    #expect(try shop.folder.fold(maxEvents: 50_000) == 0, "everything was folded")

    let expected = try Self.aggregates(plain.database)
    let actual = try Self.aggregates(shop.database)
    #expect(expected["install_days"]?.isEmpty == false, "the slices touch the install tables")
    for (table, rows) in expected {
      #expect(actual[table] == rows, "\(table): \(rows.count) rows expected")
    }
  }

  @Test("a prepared fold that another fold overtook is folded afresh, and nothing twice")
  func staleFold() throws {
    // The first slice, folded, then the same events an hour later under
    // new ids: their dimension sets are all stored before the fold is
    // prepared, so only the folded seq tells it is stale.
    let slices = Self.slices()
    let again = slices[0].map { event in
      Event(
        id: event.id.map { "again-\($0)" }, updateId: event.updateId, action: event.action,
        appVersion: event.appVersion, installId: event.installId,
        timestampMs: event.timestampMs + 3_600_000, osVersion: event.osVersion,
        platform: event.platform, previousAppVersion: event.previousAppVersion,
        isTest: event.isTest)
    }
    let inPlace = try ScratchDirectory()
    let overtaken = try ScratchDirectory()
    defer {
      inPlace.remove()
      overtaken.remove()
    }
    let plain = try ShopStore(inPlace)
    let shop = try ShopStore(overtaken)
    let reader = try Database(path: overtaken.databasePath, create: false)

    for store in [shop, plain] {
      let stored = try store.store(slices[0])
      #expect(try store.folder.fold(maxEvents: stored) == stored)
    }
    let first = try shop.store(again)
    _ = try plain.store(again)
    let half = first / 2
    let fold = try Self.prepare(reader, maxEvents: first)
    #expect(fold.count == first)
    // Another writer folds half of them first, as a running uptaked may.
    #expect(try shop.folder.fold(maxEvents: half) == half)
    #expect(try plain.folder.fold(maxEvents: half) == half)
    for slice in slices.dropFirst() {
      _ = try shop.store(slice)
      _ = try plain.store(slice)
    }
    // Stale: as many events are folded afresh from where folding is now.
    #expect(try shop.folder.fold(fold) == first)
    #expect(try plain.folder.fold(maxEvents: first) == first)
    try shop.folder.foldAll()
    try plain.folder.foldAll()

    let expected = try Self.aggregates(plain.database)
    let actual = try Self.aggregates(shop.database)
    for (table, rows) in expected {
      #expect(actual[table] == rows, "\(table): \(rows.count) rows expected")
    }
  }
}
