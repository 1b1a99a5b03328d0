import CSQLite
import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

/// A range may name any dates `YYYY-MM-DD` can: 0000-01-01 to 9999-12-31,
/// 3.65 million days. On a store whose events lie on a few days, every
/// report answers over it exactly as over those days, and reads only them:
/// its statements run a number of times that does not grow with the range.
@Suite("Reports over the widest range: the stored days' answers, at their cost")
struct WideRangeTests {
  static let widest = DayRange(
    fromDay: Timestamp.parseDate("0000-01-01")!, toDay: Timestamp.parseDate("9999-12-31")!)
  /// The days the events lie on, the unfolded ones included.
  static let stored = DayRange(
    fromDay: Timestamp.parseDate("2026-03-08")!, toDay: Timestamp.parseDate("2026-03-14")!)

  /// Events on four days with gaps between, the last day's not folded yet,
  /// so that the walk must take in the unfolded events' days too.
  private static func withStore(_ body: (ShopStore) throws -> Void) throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let store = try ShopStore(scratch)
    _ = try store.store([
      event(
        id: "1", appVersion: "1.0.0", installId: "i1", at: "2026-03-08T01:00:00Z",
        osVersion: "17.4", platform: .ios),
      event(
        id: "2", action: .download, appVersion: "1.0.0", installId: "i1",
        at: "2026-03-10T02:00:00Z", osVersion: "17.4", platform: .ios),
      event(
        id: "3", updateId: "u2", appVersion: "1.1.0", installId: "i2", at: "2026-03-10T23:00:00Z",
        platform: .android, isTest: true),
      event(
        id: "4", action: .later, appVersion: "1.1.0", installId: "i1", at: "2026-03-12T12:00:00Z"),
    ])
    try store.folder.foldAll()
    _ = try store.store([
      event(
        id: "5", appVersion: "1.1.0", installId: "i3", at: "2026-03-14T05:00:00Z",
        osVersion: "14", platform: .android),
      event(id: "6", action: .ignore, appVersion: "1.1.0", at: "2026-03-14T06:00:00Z"),
    ])
    try body(store)
  }

  @Test(
    "grouped rows over the widest range: the same rows, from the stored days alone",
    arguments: [
      ([GroupKey.appVersion], Granularity.day, TestFilter.include),
      ([.date, .appVersion], .day, .exclude),
      ([.platform, .osVersion, .action], .hour, .include),
      ([.date, .updateId, .action], .day, .include),
      ([.date, .updateId, .action], .day, .only),
      ([.osVersion], .hour, .exclude),
    ])
  func grouped(keys: [GroupKey], granularity: Granularity, test: TestFilter) throws {
    try Self.withStore { (store) throws in
      let reports = ReportQueries(database: store.database)
      let exact = try reports.grouped(
        appNo: store.appNo, keys: keys, granularity: granularity, range: Self.stored, test: test)
      let runsBefore = store.database.statementRuns()
      let wide = try reports.grouped(
        appNo: store.appNo, keys: keys, granularity: granularity, range: Self.widest, test: test)
      let runs = store.database.statementRuns() - runsBefore

      #expect(!exact.isEmpty)
      #expect(wide == exact)
      #expect(runs < 100, "statements ran \(runs) times: once a day of the range?")
    }
  }

  @Test("updates, one update, adoption and the funnel over the widest range: the same answers")
  func theOtherReports() throws {
    try Self.withStore { (store) throws in
      let reports = ReportQueries(database: store.database)
      for test in [TestFilter.exclude, .include, .only] {
        let runsBefore = store.database.statementRuns()
        #expect(
          try reports.updates(appNo: store.appNo, range: Self.widest, test: test)
            == reports.updates(appNo: store.appNo, range: Self.stored, test: test))
        #expect(
          try reports.update(appNo: store.appNo, updateId: "u1", range: Self.widest, test: test)
            == reports.update(appNo: store.appNo, updateId: "u1", range: Self.stored, test: test))
        #expect(
          try reports.adoption(appNo: store.appNo, range: Self.widest, test: test)
            == reports.adoption(appNo: store.appNo, range: Self.stored, test: test))
        #expect(
          try reports.funnel(
            appNo: store.appNo, updateId: "u1", range: Self.widest, test: test,
            targetVersion: nil)
            == reports.funnel(
              appNo: store.appNo, updateId: "u1", range: Self.stored, test: test,
              targetVersion: nil))
        let runs = store.database.statementRuns() - runsBefore
        #expect(runs < 400, "statements ran \(runs) times: once a day of the range?")
      }
    }
  }
}

extension Database {
  /// How many times the connection's prepared statements have run, in all
  /// (SQLite counts a run from the first step to the reset).
  fileprivate func statementRuns() -> Int {
    var total = 0
    var statement = sqlite3_next_stmt(handle, nil)
    while let current = statement {
      total += Int(sqlite3_stmt_status(current, SQLITE_STMTSTATUS_RUN, 0))
      statement = sqlite3_next_stmt(handle, current)
    }
    return total
  }
}
