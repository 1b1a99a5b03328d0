import Foundation
import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

/// funnel_downloads (schema/0004): each download linked to the install's
/// first version change after it, kept by the fold as versions arrive in
/// any order, and filled by the migration for databases folded before it.
@Suite("funnel_downloads: downloads linked to the next version change")
struct FunnelDownloadsTests {
  /// The table as text lines, in key order.
  static func rows(_ database: Database) throws -> [String] {
    let statement = try database.statement(
      """
      SELECT update_id, day, install_key, first_ts, last_ts, upgrade_ts, upgrade_from, upgrade_to
      FROM funnel_downloads ORDER BY app_no, is_test, update_id, day, install_key
      """)
    var lines: [String] = []
    while try statement.step() {
      let upgrade =
        statement.isNull(5)
        ? "none"
        : "\(statement.int64(5)) \(statement.string(6))→\(statement.string(7))"
      lines.append(
        "\(statement.string(0)) day \(statement.int64(1)) install \(statement.int64(2)) "
          + "\(statement.int64(3))–\(statement.int64(4)): \(upgrade)")
    }
    statement.reset()
    return lines
  }

  static func store(
    _ events: [Event], _ inserter: EventInserter, _ folder: RollupFolder, _ appNo: Int64
  ) throws {
    _ = try inserter.insert([
      EventBatch(appNo: appNo, events: events, receivedAtMs: ms("2026-03-12T00:00:00Z"))
    ])
    try folder.foldAll()
  }

  @Test("a version seen late, between a download and its linked change, takes the link over")
  func lateVersionRelinks() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let appNo = try database.addApp("app")
    let inserter = EventInserter(database: database)
    let folder = RollupFolder(database: database)
    let queries = ReportQueries(database: database)
    let range = DayRange(
      fromDay: Timestamp.dayNumber(ms: ms("2026-03-09T00:00:00Z")),
      toDay: Timestamp.dayNumber(ms: ms("2026-03-11T00:00:00Z")))
    let install = StableHash.installKey(appNo: appNo, installId: "a")
    /// The install's one download row, first to last download, and its
    /// link: the change's time and versions.
    func row(_ first: String, _ last: String, _ change: (String, String)?) -> [String] {
      let link = change.map { "\(ms($0.0)) \($0.1)" } ?? "none"
      return ["u1 day 20522 install \(install) \(ms(first))–\(ms(last)): \(link)"]
    }
    func funnel() throws -> FunnelResult {
      try queries.funnel(
        appNo: appNo, updateId: "u1", range: range, test: .exclude, targetVersion: nil)
    }

    try Self.store(
      [
        event(action: .impression, appVersion: "1.0.0", installId: "a", at: "2026-03-10T08:00:00Z"),
        event(action: .download, appVersion: "1.0.0", installId: "a", at: "2026-03-10T09:00:00Z"),
      ], inserter, folder, appNo)
    #expect(try Self.rows(database) == row("2026-03-10T09:00:00Z", "2026-03-10T09:00:00Z", nil))
    #expect(
      try funnel()
        == FunnelResult(impressions: 1, downloads: 1, upgraded: 0, medianHoursToUpgrade: nil))

    try Self.store(
      [event(action: .later, appVersion: "3.0.0", installId: "a", at: "2026-03-11T12:00:00Z")],
      inserter, folder, appNo)
    #expect(
      try Self.rows(database)
        == row(
          "2026-03-10T09:00:00Z", "2026-03-10T09:00:00Z", ("2026-03-11T12:00:00Z", "1.0.0→3.0.0")))
    #expect(
      try funnel()
        == FunnelResult(impressions: 1, downloads: 1, upgraded: 1, medianHoursToUpgrade: 28))

    // Sent before the 3.0.0 event but stored after it: 2.0.0 now comes
    // first after the download.
    try Self.store(
      [event(action: .later, appVersion: "2.0.0", installId: "a", at: "2026-03-10T20:00:00Z")],
      inserter, folder, appNo)
    #expect(
      try Self.rows(database)
        == row(
          "2026-03-10T09:00:00Z", "2026-03-10T09:00:00Z", ("2026-03-10T20:00:00Z", "1.0.0→2.0.0")))
    #expect(
      try funnel()
        == FunnelResult(impressions: 1, downloads: 1, upgraded: 1, medianHoursToUpgrade: 12))

    // An earlier download of the same day moves first_ts; the link stays
    // the first change after it.
    try Self.store(
      [event(action: .download, appVersion: "1.0.0", installId: "a", at: "2026-03-10T08:30:00Z")],
      inserter, folder, appNo)
    #expect(
      try Self.rows(database)
        == row(
          "2026-03-10T08:30:00Z", "2026-03-10T09:00:00Z", ("2026-03-10T20:00:00Z", "1.0.0→2.0.0")))

    // A later download of the day, on a version already seen, moves no
    // change: it is merged into the stored row, whose first time and
    // link stay.
    try Self.store(
      [event(action: .download, appVersion: "2.0.0", installId: "a", at: "2026-03-10T22:00:00Z")],
      inserter, folder, appNo)
    #expect(
      try Self.rows(database)
        == row(
          "2026-03-10T08:30:00Z", "2026-03-10T22:00:00Z", ("2026-03-10T20:00:00Z", "1.0.0→2.0.0")))
    // And an earlier one, merged the same way, takes its own link.
    try Self.store(
      [event(action: .download, appVersion: "1.0.0", installId: "a", at: "2026-03-10T08:15:00Z")],
      inserter, folder, appNo)
    #expect(
      try Self.rows(database)
        == row(
          "2026-03-10T08:15:00Z", "2026-03-10T22:00:00Z", ("2026-03-10T20:00:00Z", "1.0.0→2.0.0")))
  }

  @Test("schema/0004 links the downloads of a database folded before it, as the fold does")
  func migrationBackfillsAsTheFoldLinks() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let appNo = try database.addApp("app")
    let inserter = EventInserter(database: database)
    let folder = RollupFolder(database: database)
    var events: [Event] = []
    // Installs that download one or two updates, some moving up one or two
    // versions afterwards, some before, some never; one of them in test
    // events.
    for number in 0..<40 {
      let id = "install-\(number)"
      let day = 10 + number % 3
      let base = "1.\(number % 4).0"
      let isTest = number == 7
      func at(_ hour: Int, dayOffset: Int = 0) -> String {
        String(format: "2026-03-%02dT%02d:00:00Z", day + dayOffset, hour)
      }
      events.append(
        event(action: .impression, appVersion: base, installId: id, at: at(1), isTest: isTest))
      if number % 5 != 0 {
        events.append(
          event(action: .download, appVersion: base, installId: id, at: at(2), isTest: isTest))
      }
      if number % 3 == 0 {
        events.append(
          event(
            updateId: "u2", action: .download, appVersion: base, installId: id, at: at(3),
            isTest: isTest))
      }
      if number % 4 != 3 {
        events.append(
          event(
            action: .later, appVersion: "2.\(number % 2).0", installId: id,
            at: at(4, dayOffset: 1), isTest: isTest))
      }
      if number % 6 == 1 {
        events.append(
          event(
            action: .ignore, appVersion: "3.0.0", installId: id, at: at(5, dayOffset: 2),
            isTest: isTest))
      }
    }
    try Self.store(events, inserter, folder, appNo)
    let folded = try Self.rows(database)
    #expect(folded.count == 46)
    #expect(folded.filter { !$0.hasSuffix("none") }.count == 37)

    // The database as the migration finds it: folded, without the table.
    try database.putRollupsBackInEventsFile()
    try database.recreateDailyInstalls()
    try database.execute(
      """
      DROP TABLE funnel_downloads;
      DELETE FROM schema_migrations WHERE name = '0004_funnel_downloads';
      """)
    #expect(try Migrator.migrate(database) == ["0004_funnel_downloads"])

    #expect(try Self.rows(database) == folded)
    #expect(
      try database.scalarInt(
        "SELECT count(*) FROM sqlite_master WHERE name = 'version_changes_by_install_backfill'")
        == 0)
  }

  /// Each download row's later changes as "time from→to" lists, in key order.
  static func laterChanges(_ database: Database) throws -> [String] {
    let statement = try database.statement(
      """
      SELECT update_id, day, install_key, later_changes FROM funnel_downloads
      ORDER BY app_no, is_test, update_id, day, install_key
      """)
    var lines: [String] = []
    while try statement.step() {
      var changes: [String] = []
      statement.withBlob(3) {
        VersionChange.forEachPacked(in: $0) { ts, from, to in
          changes.append(
            "\(ts) \(String(decoding: from, as: UTF8.self))→\(String(decoding: to, as: UTF8.self))")
        }
      }
      lines.append(
        "\(statement.string(0)) day \(statement.int64(1)) install \(statement.int64(2)): "
          + changes.joined(separator: ", "))
    }
    statement.reset()
    return lines
  }

  @Test("every change after a download is on its row, in time order, and 0009 fills them alike")
  func laterChangesFollowTheFold() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let appNo = try database.addApp("app")
    let inserter = EventInserter(database: database)
    let folder = RollupFolder(database: database)
    let install = StableHash.installKey(appNo: appNo, installId: "a")
    // A download, then three versions up; the middle one arrives last.
    try Self.store(
      [
        event(action: .impression, appVersion: "1.0.0", installId: "a", at: "2026-03-10T08:00:00Z"),
        event(action: .download, appVersion: "1.0.0", installId: "a", at: "2026-03-10T08:30:00Z"),
        event(action: .later, appVersion: "1.1.0", installId: "a", at: "2026-03-10T20:00:00Z"),
      ], inserter, folder, appNo)
    try Self.store(
      [event(action: .later, appVersion: "3.0.0", installId: "a", at: "2026-03-11T20:00:00Z")],
      inserter, folder, appNo)
    try Self.store(
      [event(action: .later, appVersion: "2.0.0", installId: "a", at: "2026-03-11T09:00:00Z")],
      inserter, folder, appNo)

    let folded = try Self.laterChanges(database)
    #expect(
      folded == [
        "u1 day 20522 install \(install): \(ms("2026-03-10T20:00:00Z")) 1.0.0→1.1.0, "
          + "\(ms("2026-03-11T09:00:00Z")) 1.1.0→2.0.0, \(ms("2026-03-11T20:00:00Z")) 2.0.0→3.0.0"
      ])
    let queries = ReportQueries(database: database)
    let range = DayRange(
      fromDay: Timestamp.dayNumber(ms: ms("2026-03-10T00:00:00Z")),
      toDay: Timestamp.dayNumber(ms: ms("2026-03-11T00:00:00Z")))
    for (target, hours) in [("2.0.0", 25.0), ("2.5.0", 36.0), ("1.1.0", 12.0)] {
      let funnel = try queries.funnel(
        appNo: appNo, updateId: "u1", range: range, test: .exclude, targetVersion: target)
      #expect(
        funnel
          == FunnelResult(impressions: 1, downloads: 1, upgraded: 1, medianHoursToUpgrade: hours),
        "target \(target)")
    }

    try database.putRollupsBackInEventsFile()
    try database.execute(
      """
      ALTER TABLE funnel_downloads DROP COLUMN later_changes;
      DELETE FROM schema_migrations WHERE name = '0009_funnel_download_changes';
      """)
    #expect(try Migrator.migrate(database) == ["0009_funnel_download_changes"])
    #expect(try Self.laterChanges(database) == folded)
  }

  @Test("a relink finds the stored rows by key, with and without the day's filter, as one fold")
  func relinkFindsStoredRowsByKey() throws {
    // Day 10 has 600 installs in each step, enough for a membership
    // filter; day 8 has three, too few for one. Each install downloads u1,
    // every third u2 as well; in the second step half of them move up a
    // version (day 8's installs on day 10), which relinks their downloads.
    var first: [Event] = []
    var second: [Event] = []
    for number in 0..<600 {
      let id = "busy-\(number)"
      first.append(event(installId: id, at: "2026-03-10T08:00:00Z"))
      first.append(event(action: .download, installId: id, at: "2026-03-10T09:00:00Z"))
      if number % 3 == 0 {
        first.append(
          event(updateId: "u2", action: .download, installId: id, at: "2026-03-10T09:30:00Z"))
      }
      second.append(
        number % 2 == 0
          ? event(action: .later, appVersion: "2.0.0", installId: id, at: "2026-03-10T20:00:00Z")
          : event(action: .ignore, installId: id, at: "2026-03-10T21:00:00Z"))
    }
    for number in 0..<3 {
      let id = "quiet-\(number)"
      first.append(event(installId: id, at: "2026-03-08T08:00:00Z"))
      first.append(event(action: .download, installId: id, at: "2026-03-08T09:00:00Z"))
      second.append(
        event(action: .later, appVersion: "1.5.0", installId: id, at: "2026-03-10T07:00:00Z"))
    }
    let folds = try FoldedTwice([first, second])
    defer { folds.remove() }

    let day10 = BucketMembership.Day(
      appNo: folds.stepwise.appNo, isTest: false,
      day: Timestamp.dayNumber(ms: ms("2026-03-10T00:00:00Z")))
    #expect(folds.stepwise.folder.membership.filters[day10] != nil)
    let day8 = BucketMembership.Day(
      appNo: folds.stepwise.appNo, isTest: false,
      day: Timestamp.dayNumber(ms: ms("2026-03-08T00:00:00Z")))
    #expect(folds.stepwise.folder.membership.filters[day8] == nil)

    let rows = try Self.rows(folds.stepwise.database)
    #expect(rows == (try Self.rows(folds.atOnce.database)))
    #expect(
      try Self.laterChanges(folds.stepwise.database) == Self.laterChanges(folds.atOnce.database))
    #expect(rows.count == 803)
    #expect(rows.filter { $0.hasSuffix("1.0.0→2.0.0") }.count == 400)
    #expect(rows.filter { $0.hasSuffix("1.0.0→1.5.0") }.count == 3)
  }

  @Test("schema/0015 drops the index by install")
  func migrationDropsTheIndex() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    // In either file: the migration runs with the tables in the events
    // file, and the rollups are moved out after it.
    let indexes = """
      SELECT (SELECT count(*) FROM main.sqlite_master WHERE name = 'funnel_downloads_by_install')
        + (SELECT count(*) FROM rollups.sqlite_master WHERE name = 'funnel_downloads_by_install')
      """
    #expect(try database.scalarInt(indexes) == 0)

    try database.putRollupsBackInEventsFile()
    try database.execute(
      """
      CREATE INDEX funnel_downloads_by_install ON funnel_downloads (app_no, is_test, install_key);
      DELETE FROM schema_migrations WHERE name = '0015_funnel_downloads_without_install_index';
      """)
    #expect(try database.scalarInt(indexes) == 1)
    #expect(try Migrator.migrate(database) == ["0015_funnel_downloads_without_install_index"])
    #expect(try database.scalarInt(indexes) == 0)
  }
}
