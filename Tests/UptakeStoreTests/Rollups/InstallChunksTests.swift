import Foundation
import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

/// daily_install_chunks and funnel_impression_chunks (schema/0007, 0008):
/// each bucket's members, and each impression bucket's first
/// impressions, packed 512 to a row, appended by the fold and backfilled by
/// the migrations.
@Suite("Packed bucket members and first impressions")
struct InstallChunksTests {
  /// Each bucket's packed keys as a sorted list, and its chunks' sizes.
  static func buckets(_ database: Database) throws -> [String: (keys: [Int64], sizes: [Int])] {
    let statement = try database.statement(
      """
      SELECT update_id, day, action, is_test, chunk, entries, packed FROM daily_install_chunks
      ORDER BY app_no, is_test, update_id, day, action, chunk
      """)
    var buckets: [String: (keys: [Int64], sizes: [Int])] = [:]
    while try statement.step() {
      let name =
        "\(statement.string(0)) day \(statement.int64(1)) action \(statement.int64(2)) "
        + "test \(statement.int64(3))"
      var keys: [Int64] = []
      statement.withBlob(6) { Int64.forEachPacked(in: $0) { keys.append($0) } }
      #expect(keys.count == statement.int(5), "\(name): entries says how many keys")
      #expect(statement.int(4) == buckets[name]?.sizes.count ?? 0, "\(name): chunks from 0")
      buckets[name, default: ([], [])].keys += keys
      buckets[name, default: ([], [])].sizes.append(keys.count)
    }
    statement.reset()
    return buckets.mapValues { (keys: $0.keys.sorted(), sizes: $0.sizes) }
  }

  /// The same buckets' members as the stored events have them: each
  /// install of a bucket once.
  static func members(_ database: Database) throws -> [String: [Int64]] {
    let statement = try database.statement(
      """
      SELECT update_id, ts / 86400000 AS day, action, is_test,
        uptake_install_key(app_no, install_id) AS install_key
      FROM events WHERE install_id IS NOT NULL
      GROUP BY app_no, is_test, update_id, day, action, install_key
      """)
    var members: [String: [Int64]] = [:]
    while try statement.step() {
      let name =
        "\(statement.string(0)) day \(statement.int64(1)) action \(statement.int64(2)) "
        + "test \(statement.int64(3))"
      members[name, default: []].append(statement.int64(4))
    }
    statement.reset()
    return members.mapValues { $0.sorted() }
  }

  /// 1,300 installs see u1 on one day (three chunks: 512, 512, 276), over
  /// folds of 700, 500 and 100 events, repeats and a test install among
  /// them; some come back the next day and download.
  static func store(_ database: Database, _ appNo: Int64) throws {
    let inserter = EventInserter(database: database)
    let folder = RollupFolder(database: database)
    var impressions: [Event] = []
    for number in 0..<1300 {
      impressions.append(
        event(
          action: .impression, installId: "i\(number)",
          at: String(format: "2026-03-10T%02d:%02d:00Z", number % 24, number % 60),
          isTest: number == 3))
    }
    // Repeats of installs already folded add nothing to a bucket.
    let repeats = (0..<50).map {
      event(action: .impression, installId: "i\($0 * 7)", at: "2026-03-10T23:30:00Z")
    }
    let nextDay = (0..<40).map {
      event(action: .download, installId: "i\($0)", at: "2026-03-11T09:00:00Z")
    }
    for slice in [impressions[0..<700], impressions[700..<1200], impressions[1200...]] {
      _ = try inserter.insert([batch(appNo, Array(slice))])
      try folder.foldAll()
    }
    _ = try inserter.insert([batch(appNo, repeats + nextDay)])
    try folder.foldAll()
  }

  @Test("the fold fills each chunk to 512 keys before the next; every member once")
  func foldAppends() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let appNo = try database.addApp("app")
    try Self.store(database, appNo)

    let buckets = try Self.buckets(database)
    let members = try Self.members(database)
    #expect(buckets.mapValues(\.keys) == members)
    let impressions = try #require(buckets["u1 day 20522 action 0 test 0"])
    #expect(impressions.sizes == [512, 512, 275])
    #expect(buckets["u1 day 20522 action 0 test 1"]?.sizes == [1])
    #expect(buckets["u1 day 20523 action 1 test 0"]?.sizes == [40])
  }

  @Test("schema/0007 packs the members of a database folded before it")
  func migrationBackfills() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let appNo = try database.addApp("app")
    try Self.store(database, appNo)
    let folded = try Self.buckets(database)

    try database.recreateDailyInstalls()
    try database.execute(
      """
      DROP TABLE daily_install_chunks;
      DELETE FROM schema_migrations WHERE name = '0007_daily_install_chunks';
      """)
    #expect(try Migrator.migrate(database) == ["0007_daily_install_chunks"])

    let backfilled = try Self.buckets(database)
    #expect(backfilled.mapValues(\.keys) == folded.mapValues(\.keys))
    #expect(backfilled["u1 day 20522 action 0 test 0"]?.sizes == [512, 512, 275])
  }

  /// Each impression bucket's first impressions, earliest per install, as
  /// "install time version" lines; and each bucket's count of entries.
  static func firstImpressions(_ database: Database) throws -> (
    firsts: [String: [String]], entries: [String: Int]
  ) {
    let statement = try database.statement(
      """
      SELECT update_id, day, is_test, entries, packed FROM funnel_impression_chunks
      ORDER BY app_no, is_test, update_id, day, chunk
      """)
    var earliest: [String: [Int64: (ts: Int64, version: String)]] = [:]
    var entries: [String: Int] = [:]
    while try statement.step() {
      let name = "\(statement.string(0)) day \(statement.int64(1)) test \(statement.int64(2))"
      var count = 0
      statement.withBlob(4) {
        FirstImpression.forEachPacked(in: $0) { install, ts, version in
          count += 1
          if ts < earliest[name]?[install]?.ts ?? .max {
            earliest[name, default: [:]][install] = (ts, String(decoding: version, as: UTF8.self))
          }
        }
      }
      #expect(count == statement.int(3), "\(name): entries says how many")
      entries[name, default: 0] += count
    }
    statement.reset()
    let firsts = earliest.mapValues { installs in
      installs.map { "\($0.key) \($0.value.ts) \($0.value.version)" }.sorted()
    }
    return (firsts, entries)
  }

  /// Each impression bucket's first impressions as the stored events have
  /// them, as the same lines.
  static func impressionRows(_ database: Database) throws -> [String: [String]] {
    // One min() aggregate: the bare app_version is that row's.
    let statement = try database.statement(
      """
      SELECT update_id, ts / 86400000 AS day, is_test,
        uptake_install_key(app_no, install_id) AS install_key, min(ts), app_version
      FROM events WHERE install_id IS NOT NULL AND action = 0
      GROUP BY app_no, is_test, update_id, day, install_key
      """)
    var rows: [String: [String]] = [:]
    while try statement.step() {
      let name = "\(statement.string(0)) day \(statement.int64(1)) test \(statement.int64(2))"
      rows[name, default: []].append(
        "\(statement.int64(3)) \(statement.int64(4)) \(statement.string(5))")
    }
    statement.reset()
    return rows.mapValues { $0.sorted() }
  }

  @Test("first impressions: one entry per new member, another when one arrives earlier")
  func firstImpressionsFollowTheRows() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let appNo = try database.addApp("app")
    try Self.store(database, appNo)
    let inserter = EventInserter(database: database)
    let folder = RollupFolder(database: database)
    // Out of order: i5 and i6 were seen on 1.0.0 at 05:05 and 06:06; an
    // earlier impression on 0.9.0 arrives after the fold, and a later one
    // that changes nothing.
    _ = try inserter.insert([
      batch(
        appNo,
        [
          event(
            action: .impression, appVersion: "0.9.0", installId: "i5", at: "2026-03-10T01:00:00Z"),
          event(
            action: .impression, appVersion: "0.9.0", installId: "i6", at: "2026-03-10T02:00:00Z"),
          event(
            action: .impression, appVersion: "2.0.0", installId: "i7", at: "2026-03-10T23:59:00Z"),
        ])
    ])
    try folder.foldAll()

    let packed = try Self.firstImpressions(database)
    let rows = try Self.impressionRows(database)
    #expect(packed.firsts == rows)
    // 1,299 members, i5 and i6 again, and i119 and i287 again: first seen
    // at 23:59 and 23:47, their repeats at 23:30 came in a later fold.
    #expect(packed.entries["u1 day 20522 test 0"] == 1299 + 2 + 2)
    let five = StableHash.installKey(appNo: appNo, installId: "i5")
    #expect(
      rows["u1 day 20522 test 0"]?.contains("\(five) \(ms("2026-03-10T01:00:00Z")) 0.9.0") == true)
  }

  @Test("schema/0008 packs the first impressions of a database folded before it")
  func impressionMigrationBackfills() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let appNo = try database.addApp("app")
    try Self.store(database, appNo)
    let folded = try Self.firstImpressions(database)

    try database.recreateDailyInstalls()
    try database.execute(
      """
      DROP TABLE funnel_impression_chunks;
      DELETE FROM schema_migrations WHERE name = '0008_funnel_impression_chunks';
      """)
    #expect(try Migrator.migrate(database) == ["0008_funnel_impression_chunks"])

    let backfilled = try Self.firstImpressions(database)
    #expect(backfilled.firsts == folded.firsts)
    #expect(backfilled.firsts == (try Self.impressionRows(database)))
    #expect(backfilled.entries["u1 day 20522 test 0"] == 1299)
  }

  @Test("schema/0011 then 0013: bucket_members comes and goes, the packed members stay exact")
  func bucketMembersComeAndGo() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let appNo = try database.addApp("app")
    try Self.store(database, appNo)
    let folded = try Self.buckets(database)
    let impressions = try Self.firstImpressions(database)

    // A database as 0010 left it, migrated from there.
    try database.recreateDailyInstalls()
    try database.execute(
      """
      DELETE FROM schema_migrations
      WHERE name IN ('0011_bucket_members', '0013_members_from_chunks');
      """)
    #expect(
      try Migrator.migrate(database) == ["0011_bucket_members", "0013_members_from_chunks"])
    for table in ["daily_installs", "bucket_members", "daily_buckets"] {
      #expect(
        try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = '\(table)'") == 0,
        "\(table) is gone")
    }
    #expect(try Self.buckets(database).mapValues(\.keys) == folded.mapValues(\.keys))
    #expect(try Self.firstImpressions(database).firsts == impressions.firsts)

    // Folding goes on from the packed members, with a new writer whose
    // filters start empty: a later event of a known member adds nothing,
    // a new install adds one.
    let inserter = EventInserter(database: database)
    let folder = RollupFolder(database: database)
    _ = try inserter.insert([
      batch(
        appNo,
        [
          event(installId: "i5", at: "2026-03-10T23:00:00Z"),
          event(installId: "new-one", at: "2026-03-10T23:00:00Z"),
        ])
    ])
    try folder.fold(maxEvents: 50_000)
    let after = try Self.buckets(database)
    #expect(after.mapValues(\.keys) == (try Self.members(database)))
    #expect(
      after["u1 day 20522 action 0 test 0"]?.keys.count
        == (folded["u1 day 20522 action 0 test 0"]?.keys.count ?? 0) + 1)
    #expect(
      try database.scalarInt(
        "SELECT installs FROM daily_counts WHERE update_id = 'u1' AND day = 20522 AND action = 0 AND is_test = 0"
      ) == Int64(after["u1 day 20522 action 0 test 0"]?.keys.count ?? 0))
  }
}
