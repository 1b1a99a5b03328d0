import Foundation
import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

/// dimension_count_runs (schema/0012): each fold appends a run of event
/// counts per day, the fold merges a day's small runs once there are many,
/// and the migration packs the hourly_dimension_counts rows of older
/// databases.
@Suite("Event counts by dimension as runs")
struct DimensionCountRunsTests {
  /// Every day's counts summed by key, and each day's run sizes.
  static func counts(_ database: Database) throws -> (
    sums: [String: [DimensionCount]], runSizes: [String: [Int]]
  ) {
    let statement = try database.statement(
      "SELECT app_no, is_test, day, entries, packed FROM dimension_count_runs ORDER BY 1, 2, 3, run"
    )
    var all: [String: [DimensionCount]] = [:]
    var sizes: [String: [Int]] = [:]
    while try statement.step() {
      let name = "app \(statement.int64(0)) test \(statement.int64(1)) day \(statement.int64(2))"
      var run: [DimensionCount] = []
      statement.blob(4).withUnsafeBytes { DimensionCount.unpackAll($0, into: &run) }
      #expect(run.count == statement.int(3), "\(name): entries says how many")
      all[name, default: []].append(contentsOf: run)
      sizes[name, default: []].append(run.count)
    }
    statement.reset()
    return (all.mapValues { DimensionCountRuns.summed($0) }, sizes)
  }

  @Test("entries pack and unpack, wide numbers too; the SQL aggregate packs them alike")
  func packing() throws {
    let entries = [
      DimensionCount(dimsNo: 1, action: 0, hourOfDay: 0, events: 1),
      DimensionCount(dimsNo: 300, action: 3, hourOfDay: 23, events: 127),
      DimensionCount(dimsNo: 1 << 40, action: 1, hourOfDay: 12, events: 1 << 35),
    ]
    var packed: [UInt8] = []
    for entry in entries { entry.pack(into: &packed) }
    var unpacked: [DimensionCount] = []
    packed.withUnsafeBytes { DimensionCount.unpackAll($0, into: &unpacked) }
    #expect(unpacked == entries)
    // A blob cut short yields the entries before the cut, and no more.
    var cut: [DimensionCount] = []
    Array(packed.dropLast()).withUnsafeBytes { DimensionCount.unpackAll($0, into: &cut) }
    #expect(cut == Array(entries.prefix(2)))

    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let values = entries.map { "(\($0.dimsNo), \($0.action), \($0.hourOfDay), \($0.events))" }
    let statement = try database.statement(
      """
      SELECT uptake_pack_counts(column1, column2, column3, column4)
      FROM (VALUES \(values.joined(separator: ", ")))
      """)
    #expect(try statement.step())
    #expect(statement.blob(0) == packed)
    statement.reset()
  }

  @Test("folding a day in many small folds merges its runs and keeps the counts of one fold")
  func manySmallFolds() throws {
    let slices = PresenceRunsTests.slices()
    let folded = try FoldedTwice(slices)
    defer { folded.remove() }
    let small = folded.stepwise
    let whole = folded.atOnce

    let (sums, sizes) = try Self.counts(small.database)
    let (expected, wholeSizes) = try Self.counts(whole.database)
    #expect(sums == expected)
    let day = "app \(small.appNo) test 0 day \(Timestamp.dayNumber(ms: ms("2026-03-10T00:00:00Z")))"
    #expect(wholeSizes[day]?.count == 1)
    let runs = try #require(sizes[day])
    #expect(runs.count < slices.count, "the small runs were merged")
    #expect(runs.count <= DimensionCountRuns.table.maxSmallRuns, "\(runs)")
    let events = expected.values.joined().reduce(0) { $0 + $1.events }
    #expect(events == Int64(slices.joined().count), "every event counted once")
  }

  @Test("schema/0012 packs the hourly_dimension_counts rows of a database folded before it")
  func migrationBackfills() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let shop = try ShopStore(scratch)
    let database = shop.database
    for slice in PresenceRunsTests.slices().prefix(12) {
      _ = try shop.store(slice)
      try shop.folder.foldAll()
    }
    let (folded, _) = try Self.counts(database)
    #expect(folded.count == 2, "test and other events, one day")
    let range = DayRange(
      fromDay: Timestamp.dayNumber(ms: ms("2026-03-09T00:00:00Z")),
      toDay: Timestamp.dayNumber(ms: ms("2026-03-11T00:00:00Z")))
    func reports() throws -> [[GroupedRow]] {
      try [Granularity.day, .hour].map { granularity in
        try ReportQueries(database: database).grouped(
          appNo: shop.appNo, keys: [.date, .appVersion, .action], granularity: granularity,
          range: range, test: .include)
      }
    }
    let before = try reports()

    try database.putRollupsBackInEventsFile()
    // The database as 0005–0011 left it: a row per hour, set and action,
    // inserted in reverse so the migration cannot count on key order; the
    // daily table only needs to be there to be dropped.
    try database.execute(
      """
      CREATE TABLE hourly_dimension_counts (
        app_no INTEGER NOT NULL, is_test INTEGER NOT NULL, hour INTEGER NOT NULL,
        dims_no INTEGER NOT NULL, action INTEGER NOT NULL, events INTEGER NOT NULL,
        PRIMARY KEY (app_no, is_test, hour, dims_no, action)
      ) WITHOUT ROWID;
      CREATE TABLE daily_dimension_counts (
        app_no INTEGER NOT NULL, is_test INTEGER NOT NULL, day INTEGER NOT NULL,
        dims_no INTEGER NOT NULL, action INTEGER NOT NULL, events INTEGER NOT NULL,
        PRIMARY KEY (app_no, is_test, day, dims_no, action)
      ) WITHOUT ROWID;
      """)
    let add = try database.statement(
      "INSERT INTO hourly_dimension_counts VALUES (?, ?, ?, ?, ?, ?)")
    for isTest in [false, true] {
      var rows: [(day: Int64, count: DimensionCount)] = []
      for day in range.fromDay...range.toDay {
        var counts: [DimensionCount] = []
        try DimensionCountRuns.read(
          DimensionCountRuns.Day(appNo: shop.appNo, isTest: isTest, day: day), into: &counts,
          database)
        rows += DimensionCountRuns.summed(counts).map { (day: day, count: $0) }
      }
      for (day, count) in rows.reversed() {
        try add.bind(1, shop.appNo)
        try add.bind(2, Int64(isTest ? 1 : 0))
        try add.bind(3, day * 24 + Int64(count.hourOfDay))
        try add.bind(4, count.dimsNo)
        try add.bind(5, Int64(count.action))
        try add.bind(6, count.events)
        try add.run()
      }
    }
    try database.execute(
      """
      DROP TABLE dimension_count_runs;
      DELETE FROM schema_migrations WHERE name = '0012_dimension_count_runs';
      """)
    #expect(try Migrator.migrate(database) == ["0012_dimension_count_runs"])

    let (backfilled, sizes) = try Self.counts(database)
    #expect(backfilled == folded)
    #expect(sizes.values.allSatisfy { $0.count == 1 }, "one run a day")
    #expect(try reports() == before)
    #expect(
      try database.scalarInt(
        """
        SELECT count(*) FROM sqlite_schema
        WHERE name IN ('hourly_dimension_counts', 'daily_dimension_counts')
        """) == 0)
  }
}
