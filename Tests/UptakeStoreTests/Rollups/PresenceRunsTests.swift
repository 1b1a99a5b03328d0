import Foundation
import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

/// presence_runs (schema/0010): each fold appends a sorted run per day, the
/// fold merges a day's small runs once there are many, and the migration
/// packs the install_presence rows of older databases.
@Suite("Install presence as sorted runs")
struct PresenceRunsTests {
  /// Every day's presence, each install and dimension set once with the
  /// union of its hours, in run order; and each day's run sizes.
  static func presence(_ database: Database) throws -> (
    entries: [String: [PresenceEntry]], runSizes: [String: [Int]]
  ) {
    let statement = try database.statement(
      "SELECT app_no, is_test, day, entries, packed FROM presence_runs ORDER BY 1, 2, 3, run")
    var runs: [String: PresenceRunSet] = [:]
    var sizes: [String: [Int]] = [:]
    while try statement.step() {
      let name = "app \(statement.int64(0)) test \(statement.int64(1)) day \(statement.int64(2))"
      let blob = statement.blob(4)
      var count = 0
      var previous: PresenceEntry?
      blob.withUnsafeBytes { bytes in
        var offset = 0
        while let entry = PresenceEntry.unpack(bytes, &offset) {
          count += 1
          if let previous { #expect(previous.precedes(entry), "\(name): a run is sorted") }
          previous = entry
        }
        #expect(offset == bytes.count, "\(name): the run ends with its last entry")
      }
      #expect(count == statement.int(3), "\(name): entries says how many")
      if runs[name] == nil { runs[name] = PresenceRunSet() }
      runs[name]!.append(blob)
      sizes[name, default: []].append(count)
    }
    statement.reset()
    return (runs.mapValues { Self.entries(of: $0.packedCombined().bytes) }, sizes)
  }

  /// The entries of one run.
  static func entries(of run: [UInt8]) -> [PresenceEntry] {
    var entries: [PresenceEntry] = []
    run.withUnsafeBytes { bytes in
      var offset = 0
      while let entry = PresenceEntry.unpack(bytes, &offset) { entries.append(entry) }
    }
    return entries
  }

  /// A day of 2,000 installs in 24 slices of 125 events each: installs come
  /// back in later slices with other hours, actions and versions. The
  /// folds of 9 and 17 slices merge the runs, and 8 runs are left.
  static func slices() -> [[Event]] {
    var events: [Event] = []
    for number in 0..<3000 {
      let install = number * 7919 % 2000
      let action: Action = [.impression, .impression, .download, .later, .ignore][number % 5]
      events.append(
        event(
          updateId: "u\(number % 3)", action: action,
          appVersion: "1.\(install % 4 + number / 1500)",
          installId: "i\(install)",
          at: String(format: "2026-03-10T%02d:%02d:00Z", number % 24, number % 60),
          osVersion: "17.\(install % 2)", platform: .ios, isTest: install % 97 == 0))
    }
    return stride(from: 0, to: events.count, by: 125).map {
      Array(events[$0..<min(events.count, $0 + 125)])
    }
  }

  @Test("an entry packs and unpacks to itself; a cut blob ends the run")
  func packing() {
    let entries = [
      PresenceEntry(installKey: .min, dimsNo: 0, hours: SIMD4(1, 0, 0, 0)),
      PresenceEntry(installKey: -5, dimsNo: 127, hours: SIMD4(0, 1 << 23, 0, 0)),
      PresenceEntry(installKey: 0, dimsNo: 128, hours: SIMD4(0xFFFFFF, 0, 0, 1 << 12)),
      PresenceEntry(installKey: .max, dimsNo: 1 << 40, hours: SIMD4(3, 5, 7, 0xFFFFFF)),
    ]
    let blob = entries.packed(reservingPerEntry: 14)
    var decoded: [PresenceEntry] = []
    blob.withUnsafeBytes { bytes in
      var offset = 0
      while let entry = PresenceEntry.unpack(bytes, &offset) { decoded.append(entry) }
      #expect(offset == bytes.count)
    }
    #expect(decoded == entries)

    let cut = Array(blob.dropLast())
    var offset = 0
    var whole = 0
    cut.withUnsafeBytes { bytes in
      while PresenceEntry.unpack(bytes, &offset) != nil { whole += 1 }
    }
    #expect(whole == entries.count - 1)
  }

  @Test("uptake_pack_presence packs rows in order, and sorts rows that come out of order")
  func packAggregate() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let rows = [(5, 1, 1), (-3, 2, 2), (5, 0, 4), (9, 7, 8), (-3, 1, 16)]
    let sorted = rows.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
    for (order, expected) in [(sorted, sorted), (rows, sorted)] {
      let values = order.map { "(\($0.0), \($0.1), \($0.2))" }.joined(separator: ", ")
      let statement = try database.statement(
        "SELECT uptake_pack_presence(column1, column2, column3, 0, 0, column3) FROM (VALUES \(values))"
      )
      #expect(try statement.step())
      let packed = Self.entries(of: statement.blob(0))
      statement.reset()
      #expect(
        packed
          == expected.map {
            PresenceEntry(
              installKey: Int64($0.0), dimsNo: Int64($0.1),
              hours: SIMD4(Int64($0.2), 0, 0, Int64($0.2)))
          })
    }
  }

  @Test("a fold writes a day of more entries than a run takes as several runs, cut between entries")
  func longDayInSeveralRuns() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let shop = try ShopStore(scratch)
    let installs = PresenceRuns.writtenRunEntries + 1_000
    // Each install twice, at two hours with two actions: one entry each.
    let events =
      (0..<installs).map { event(installId: "i\($0)", at: "2026-03-10T03:00:00Z") }
      + (0..<installs).map {
        event(action: .download, installId: "i\($0)", at: "2026-03-10T05:00:00Z")
      }
    #expect(try shop.store(events) == events.count)
    #expect(try shop.folder.fold(maxEvents: events.count) == events.count)

    let (entries, sizes) = try Self.presence(shop.database)
    let day = "app \(shop.appNo) test 0 day \(Timestamp.dayNumber(ms: ms("2026-03-10T00:00:00Z")))"
    #expect(sizes[day] == [PresenceRuns.writtenRunEntries, 1_000])
    let presence = try #require(entries[day])
    #expect(presence.count == installs)
    #expect(presence.allSatisfy { $0.hours == SIMD4(1 << 3, 1 << 5, 0, 0) })
  }

  @Test("folding a day in many small folds merges its runs and keeps the presence of one fold")
  func manySmallFolds() throws {
    let slices = Self.slices()
    let folded = try FoldedTwice(slices)
    defer { folded.remove() }
    let small = folded.stepwise
    let whole = folded.atOnce

    let (entries, sizes) = try Self.presence(small.database)
    let (expected, wholeSizes) = try Self.presence(whole.database)
    #expect(entries == expected)
    let day = "app \(small.appNo) test 0 day \(Timestamp.dayNumber(ms: ms("2026-03-10T00:00:00Z")))"
    #expect(wholeSizes[day]?.count == 1)
    let runs = try #require(sizes[day])
    #expect(runs.count < slices.count, "the small runs were merged")
    #expect(runs.count == PresenceRuns.table.maxSmallRuns, "reports merge several runs; \(runs)")
    #expect((expected[day]?.count ?? 0) > 2000, "installs with several dimension sets")

    // The reports read the same installs from both.
    let range = DayRange(
      fromDay: Timestamp.dayNumber(ms: ms("2026-03-09T00:00:00Z")),
      toDay: Timestamp.dayNumber(ms: ms("2026-03-11T00:00:00Z")))
    for keys: [GroupKey] in [[.date, .appVersion], [.appVersion, .action], [.osVersion]] {
      for test in TestFilter.allCases {
        for granularity in [Granularity.day, .hour] {
          let stepRows = try ReportQueries(database: small.database).grouped(
            appNo: small.appNo, keys: keys, granularity: granularity, range: range, test: test)
          let wholeRows = try ReportQueries(database: whole.database).grouped(
            appNo: whole.appNo, keys: keys, granularity: granularity, range: range, test: test)
          #expect(stepRows == wholeRows, "\(keys) \(granularity) test=\(test)")
          #expect(!stepRows.isEmpty || test == .only)
        }
      }
    }
  }

  @Test("schema/0010 packs the install_presence rows of a database folded before it")
  func migrationBackfills() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let shop = try ShopStore(scratch)
    let database = shop.database
    for slice in Self.slices().prefix(12) {
      _ = try shop.store(slice)
      try shop.folder.foldAll()
    }
    let (folded, _) = try Self.presence(database)
    #expect(folded.count == 2, "test and other installs, one day")

    // The database as 0005–0009 left it: a row per install, day and set.
    try database.execute(
      """
      CREATE TABLE install_presence (
        app_no INTEGER NOT NULL, is_test INTEGER NOT NULL, day INTEGER NOT NULL,
        install_key INTEGER NOT NULL, dims_no INTEGER NOT NULL,
        impression_hours INTEGER NOT NULL, download_hours INTEGER NOT NULL,
        later_hours INTEGER NOT NULL, ignore_hours INTEGER NOT NULL,
        PRIMARY KEY (app_no, is_test, day, install_key, dims_no)
      ) WITHOUT ROWID
      """)
    let add = try database.statement(
      "INSERT INTO install_presence VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
    let days = try database.statement("SELECT DISTINCT app_no, is_test, day FROM presence_runs")
    var keys: [PresenceRuns.Day] = []
    while try days.step() {
      keys.append(
        PresenceRuns.Day(appNo: days.int64(0), isTest: days.int64(1) == 1, day: days.int64(2)))
    }
    days.reset()
    // Inserted in reverse, so the migration cannot count on key order.
    for key in keys {
      let runs = PresenceRunSet()
      try PresenceRuns.read(key, into: runs, database)
      for entry in Self.entries(of: runs.packedCombined().bytes).reversed() {
        try add.bind(1, key.appNo)
        try add.bind(2, Int64(key.isTest ? 1 : 0))
        try add.bind(3, key.day)
        try add.bind(4, entry.installKey)
        try add.bind(5, entry.dimsNo)
        for action in 0..<4 { try add.bind(Int32(6 + action), entry.hours[action]) }
        try add.run()
      }
    }
    try database.execute(
      """
      DROP TABLE presence_runs;
      DELETE FROM schema_migrations WHERE name = '0010_presence_runs';
      """)
    #expect(try Migrator.migrate(database) == ["0010_presence_runs"])

    let (backfilled, sizes) = try Self.presence(database)
    #expect(backfilled == folded)
    #expect(sizes.values.allSatisfy { $0.count == 1 }, "one run a day")
    #expect(
      try database.scalarInt(
        "SELECT count(*) FROM sqlite_schema WHERE name = 'install_presence'") == 0)
  }
}
