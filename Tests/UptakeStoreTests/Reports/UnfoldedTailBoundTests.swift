import Testing
import UptakeCore
import UptakeStore
import UptakeTestSupport

/// Reports refuse to read an unfolded tail past `maxUnfoldedEvents`: after a
/// migration that folds every event again, a report that read them all
/// held gigabytes (docs/performance.md, session 26).
@Suite("ReportQueries: the unfolded tail's bound")
struct UnfoldedTailBoundTests {
  /// `ReportFixture` stores 9 events, none folded: 8 of the shop's, 1 of news.
  static let storedEvents: Int64 = 9

  /// The fixture's three days.
  static func range() throws -> DayRange {
    DayRange(
      fromDay: try #require(Timestamp.parseDate("2026-03-09")),
      toDay: try #require(Timestamp.parseDate("2026-03-11")))
  }

  @Test("every report refuses past the bound, and answers in full at it")
  func everyReportBounded() throws {
    try ReportFixture.with { fixture in
      let range = try Self.range()
      let shop = fixture.shop
      let reports: [(String, (ReportQueries) throws(StoreError) -> String)] = [
        (
          "updates",
          { q throws(StoreError) in "\(try q.updates(appNo: shop, range: range, test: .include))" }
        ),
        (
          "one update",
          { q throws(StoreError) in
            "\(try q.update(appNo: shop, updateId: "u1", range: range, test: .exclude))"
          }
        ),
        (
          "grouped by date, update, action",
          { q throws(StoreError) in
            "\(try q.grouped(appNo: shop, keys: [.date, .updateId, .action], granularity: .day, range: range, test: .exclude))"
          }
        ),
        (
          "grouped by version and platform",
          { q throws(StoreError) in
            "\(try q.grouped(appNo: shop, keys: [.appVersion, .platform], granularity: .hour, range: range, test: .include))"
          }
        ),
        (
          "adoption",
          { q throws(StoreError) in "\(try q.adoption(appNo: shop, range: range, test: .include))" }
        ),
        (
          "funnel",
          { q throws(StoreError) in
            "\(try q.funnel(appNo: shop, updateId: "u1", range: range, test: .exclude, targetVersion: nil))"
          }
        ),
        (
          "funnel with a target",
          { q throws(StoreError) in
            "\(try q.funnel(appNo: shop, updateId: "u1", range: range, test: .include, targetVersion: "2.10.0"))"
          }
        ),
      ]
      let unbounded = ReportQueries(database: fixture.database)
      let atBound = ReportQueries(
        database: fixture.database, maxUnfoldedEvents: Int(Self.storedEvents))
      let pastBound = ReportQueries(
        database: fixture.database, maxUnfoldedEvents: Int(Self.storedEvents) - 1)
      for (name, report) in reports {
        #expect(try report(atBound) == report(unbounded), "\(name)")
        do {
          _ = try report(pastBound)
          Issue.record("\(name): answered past the bound")
        } catch let error as StoreError {
          guard case .foldBehind(let unfolded, let maxEvents) = error else {
            Issue.record("\(name): \(error)")
            continue
          }
          #expect(unfolded == Self.storedEvents, "\(name)")
          #expect(maxEvents == Int(Self.storedEvents) - 1, "\(name)")
        }
      }
    }
  }

  @Test("folded events do not count against the bound")
  func foldedEventsFree() throws {
    try ReportFixture.with { fixture in
      let range = try Self.range()
      let before = try ReportQueries(database: fixture.database).updates(
        appNo: fixture.shop, range: range, test: .exclude)
      _ = try RollupFolder(database: fixture.database).fold(maxEvents: 1_000)
      let bounded = ReportQueries(database: fixture.database, maxUnfoldedEvents: 0)
      #expect(
        "\(try bounded.updates(appNo: fixture.shop, range: range, test: .exclude))"
          == "\(before)")
    }
  }
}
