import Testing
import UptakeCore
import UptakeStore
import UptakeTestSupport

/// Reports over a small set of events whose figures are worked out by hand
/// in `ReportFixture`.
@Suite("ReportQueries: updates, one update, grouped rows")
struct ReportQueriesTests {
  // MARK: updates

  @Test("updates: per update, first and last event time and events by action")
  func updatesOverTwoDays() throws {
    try ReportFixture.with { (fixture) throws in
      let text = try fixture.updates("2026-03-10", "2026-03-11", .exclude)
      #expect(
        text == """
          u1 2026-03-10T00:00:00Z 2026-03-11T12:00:00Z 3 1 1 0
          u2 2026-03-11T09:00:00Z 2026-03-11T09:00:00Z 1 0 0 0
          """)
    }
  }

  @Test("updates: a day runs from midnight UTC to the last millisecond before the next")
  func updatesDayEdges() throws {
    try ReportFixture.with { (fixture) throws in
      #expect(
        try fixture.updates("2026-03-10", "2026-03-10", .exclude)
          == "u1 2026-03-10T00:00:00Z 2026-03-10T23:59:59.999Z 2 1 0 0")
      #expect(
        try fixture.updates("2026-03-09", "2026-03-09", .exclude)
          == "u1 2026-03-09T23:59:59.999Z 2026-03-09T23:59:59.999Z 0 0 0 1")
      #expect(
        try fixture.updates("2026-03-11", "2026-03-11", .exclude)
          == """
          u1 2026-03-11T00:00:00Z 2026-03-11T12:00:00Z 1 0 1 0
          u2 2026-03-11T09:00:00Z 2026-03-11T09:00:00Z 1 0 0 0
          """)
      #expect(try fixture.updates("2026-03-12", "2026-04-01", .exclude) == "")
    }
  }

  @Test("updates: test events are left out, added, or alone, as the filter says")
  func updatesTestFilter() throws {
    try ReportFixture.with { (fixture) throws in
      #expect(
        try fixture.updates("2026-03-10", "2026-03-10", .include)
          == "u1 2026-03-10T00:00:00Z 2026-03-10T23:59:59.999Z 3 1 0 0")
      #expect(
        try fixture.updates("2026-03-09", "2026-03-11", .only)
          == "u1 2026-03-10T12:00:00Z 2026-03-10T12:00:00Z 1 0 0 0")
    }
  }

  // MARK: one update

  @Test("update: events and installs by action, rates over installs with an impression, days")
  func updateDetail() throws {
    try ReportFixture.with { (fixture) throws in
      let detail = try fixture.update("u1", "2026-03-09", "2026-03-11", .exclude)
      #expect(
        fixture.describe(detail) == """
          impression 3/2 download 1/1 later 1/1 ignore 1/1
          rates 0.5 0.5 0.5
          2026-03-09 0 0 0 1
          2026-03-10 2 1 0 0
          2026-03-11 1 0 1 0
          """)
    }
  }

  @Test("update: test events change counts and rates only when asked for")
  func updateDetailTestFilter() throws {
    try ReportFixture.with { (fixture) throws in
      let included = try fixture.update("u1", "2026-03-10", "2026-03-10", .include)
      #expect(
        fixture.describe(included) == """
          impression 3/3 download 1/1 later 0/0 ignore 0/0
          rates 0.3333333333333333 0.0 0.0
          2026-03-10 3 1 0 0
          """)
      let only = try fixture.update("u1", "2026-03-09", "2026-03-11", .only)
      #expect(
        fixture.describe(only) == """
          impression 1/1 download 0/0 later 0/0 ignore 0/0
          rates 0.0 0.0 0.0
          2026-03-10 1 0 0 0
          """)
    }
  }

  @Test("update: an update without events in the range has zero counts, no days, no rates")
  func updateWithoutEvents() throws {
    try ReportFixture.with { (fixture) throws in
      for (updateId, from, to) in [
        ("u2", "2026-03-10", "2026-03-10"), ("nope", "2026-03-09", "2026-03-11"),
      ] {
        let detail = try fixture.update(updateId, from, to, .exclude)
        #expect(
          fixture.describe(detail) == """
            impression 0/0 download 0/0 later 0/0 ignore 0/0
            rates nil nil nil
            """)
      }
    }
  }

  // MARK: grouped

  @Test("grouped by date then action: rows sorted by date, then action name")
  func groupedByDateAndAction() throws {
    try ReportFixture.with { (fixture) throws in
      #expect(
        try fixture.grouped([.date, .action], "2026-03-09", "2026-03-11") == """
          2026-03-09 ignore 1 1
          2026-03-10 download 1 1
          2026-03-10 impression 2 2
          2026-03-11 impression 2 1
          2026-03-11 later 1 1
          """)
    }
  }

  @Test("grouped by action then date: the same counts, in the keys' new order")
  func groupedByActionAndDate() throws {
    try ReportFixture.with { (fixture) throws in
      #expect(
        try fixture.grouped([.action, .date], "2026-03-09", "2026-03-11") == """
          download 2026-03-10 1 1
          ignore 2026-03-09 1 1
          impression 2026-03-10 2 2
          impression 2026-03-11 2 1
          later 2026-03-11 1 1
          """)
    }
  }

  @Test("grouped by appVersion: version order, so 2.9.1 < 2.10.0 < 10.0")
  func groupedByAppVersion() throws {
    try ReportFixture.with { (fixture) throws in
      #expect(
        try fixture.grouped([.appVersion], "2026-03-09", "2026-03-11") == """
          2.9.1 2 1
          2.10.0 4 2
          10.0 1 1
          """)
    }
  }

  @Test("grouped by osVersion: version order, events without one first")
  func groupedByOSVersion() throws {
    try ReportFixture.with { (fixture) throws in
      #expect(
        try fixture.grouped([.osVersion], "2026-03-09", "2026-03-11") == """
          - 1 0
          9.0 1 1
          14 2 1
          16.4 1 1
          17.0 2 1
          """)
    }
  }

  @Test("grouped by platform and updateId: text order, missing values first")
  func groupedByPlatformAndUpdate() throws {
    try ReportFixture.with { (fixture) throws in
      #expect(
        try fixture.grouped([.platform, .updateId], "2026-03-09", "2026-03-11") == """
          - u1 1 0
          android u1 2 1
          ios u1 3 2
          ios u2 1 1
          """)
    }
  }

  @Test("grouped by hour: the date carries the hour as YYYY-MM-DDTHH")
  func groupedByHour() throws {
    try ReportFixture.with { (fixture) throws in
      #expect(
        try fixture.grouped([.date], "2026-03-10", "2026-03-10", granularity: .hour) == """
          2026-03-10T00 1 1
          2026-03-10T08 1 1
          2026-03-10T23 1 1
          """)
    }
  }

  @Test("grouped: events without an installId count as events, not installs")
  func groupedInstalls() throws {
    try ReportFixture.with { (fixture) throws in
      #expect(
        try fixture.grouped([.updateId], "2026-03-09", "2026-03-11") == """
          u1 6 3
          u2 1 1
          """)
      #expect(try fixture.grouped([.updateId], "2026-03-09", "2026-03-11", test: .only) == "u1 1 1")
      #expect(try fixture.grouped([.updateId], "2026-03-12", "2026-03-20") == "")
    }
  }

  /// The fixture's events are stored and not folded: a report then counts
  /// them from the events alone, and adoption once answered past the cap
  /// there (CI, session 25, when the daemon had not folded yet).
  @Test(
    "unfolded events count against the row cap: a report past it is refused",
    arguments: [TestFilter.exclude, .include])
  func rowCapOverUnfoldedEvents(test: TestFilter) throws {
    try ReportFixture.with { fixture in
      let range = DayRange(
        fromDay: try #require(Timestamp.parseDate("2026-03-09")),
        toDay: try #require(Timestamp.parseDate("2026-03-11")))
      let capped = ReportQueries(database: fixture.database, maxRows: 2)
      let uncapped = ReportQueries(database: fixture.database)
      func refused(_ name: String, _ report: (ReportQueries) throws(StoreError) -> Int) throws {
        // More rows than the cap without it, so the cap is what refuses.
        #expect(try report(uncapped) > 2, "\(name)")
        do {
          _ = try report(capped)
          Issue.record("\(name): answered past the cap")
        } catch {
          guard case .reportTooLarge(let maxRows) = error else {
            Issue.record("\(name): \(error)")
            return
          }
          #expect(maxRows == 2, "\(name)")
        }
      }
      try refused("adoption") { queries throws(StoreError) in
        try queries.adoption(appNo: fixture.shop, range: range, test: test).count
      }
      for keys: [GroupKey] in [[.date, .appVersion], [.appVersion, .date], [.date, .action]] {
        try refused("grouped by \(keys)") { queries throws(StoreError) in
          try queries.grouped(
            appNo: fixture.shop, keys: keys, granularity: .day, range: range, test: test
          ).count
        }
      }
    }
  }

  @Test("grouped by the default keys: an unfolded install counts once beside its folded self")
  func groupedBucketsAcrossTheFold() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let shop = try ShopStore(scratch)
    _ = try shop.store([
      event(installId: "i1", at: "2026-03-10T08:00:00Z"),
      event(installId: "i2", at: "2026-03-10T09:00:00Z"),
    ])
    try shop.folder.fold(maxEvents: 50_000)
    // Not folded: i1 again in its bucket, i3 new to it, i2 in the next
    // day's bucket, and a download, whose bucket no fold has met.
    _ = try shop.store([
      event(installId: "i1", at: "2026-03-10T10:00:00Z"),
      event(installId: "i3", at: "2026-03-10T11:00:00Z"),
      event(installId: "i2", at: "2026-03-11T09:00:00Z"),
      event(action: .download, installId: "i1", at: "2026-03-10T12:00:00Z"),
    ])
    let rows = try ReportQueries(database: shop.database).grouped(
      appNo: shop.appNo, keys: [.date, .updateId, .action], granularity: .day,
      range: DayRange(
        fromDay: try #require(Timestamp.parseDate("2026-03-10")),
        toDay: try #require(Timestamp.parseDate("2026-03-11"))),
      test: .exclude)
    #expect(
      rows.map(ReportFixture.line)
        == [
          "2026-03-10 u1 download 1 1", "2026-03-10 u1 impression 4 3",
          "2026-03-11 u1 impression 1 1",
        ])
  }
}

/// Two apps' events, and the reports of app "shop" as text.
///
/// App "shop", update u1 (installs i1, i2, i3; one event without install):
///
///     2026-03-09T23:59:59.999Z  ignore      i3   10.0    ios      9.0
///     2026-03-10T00:00:00Z      impression  i1   2.9.1   ios      17.0
///     2026-03-10T08:30:00Z      download    i1   2.9.1   ios      17.0
///     2026-03-10T12:00:00Z      impression  i9   2.9.1   ios      17.0   test
///     2026-03-10T23:59:59.999Z  impression  i2   2.10.0  android  14
///     2026-03-11T00:00:00Z      later       i2   2.10.0  android  14
///     2026-03-11T12:00:00Z      impression  -    2.10.0  -        -
///
/// update u2: 2026-03-11T09:00:00Z impression i1 2.10.0 ios 16.4.
/// App "news" has one u1 impression on 2026-03-10, never in shop's reports.
struct ReportFixture {
  let database: Database
  let shop: Int64

  static func with(_ body: (ReportFixture) throws -> Void) throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let shop = try database.addApp("shop")
    let news = try database.addApp("news")
    let shopEvents = [
      event(
        action: .ignore, appVersion: "10.0", installId: "i3", at: "2026-03-09T23:59:59.999Z",
        osVersion: "9.0", platform: .ios),
      event(
        action: .impression, appVersion: "2.9.1", installId: "i1", at: "2026-03-10T00:00:00Z",
        osVersion: "17.0", platform: .ios),
      event(
        action: .download, appVersion: "2.9.1", installId: "i1", at: "2026-03-10T08:30:00Z",
        osVersion: "17.0", platform: .ios),
      event(
        action: .impression, appVersion: "2.9.1", installId: "i9", at: "2026-03-10T12:00:00Z",
        osVersion: "17.0", platform: .ios, isTest: true),
      event(
        action: .impression, appVersion: "2.10.0", installId: "i2", at: "2026-03-10T23:59:59.999Z",
        osVersion: "14", platform: .android),
      event(
        action: .later, appVersion: "2.10.0", installId: "i2", at: "2026-03-11T00:00:00Z",
        osVersion: "14", platform: .android),
      event(action: .impression, appVersion: "2.10.0", at: "2026-03-11T12:00:00Z"),
      event(
        updateId: "u2", action: .impression, appVersion: "2.10.0", installId: "i1",
        at: "2026-03-11T09:00:00Z", osVersion: "16.4", platform: .ios),
    ]
    let newsEvents = [
      event(action: .impression, appVersion: "2.9.1", installId: "i1", at: "2026-03-10T10:00:00Z")
    ]
    _ = try EventInserter(database: database).insert([
      batch(shop, shopEvents), batch(news, newsEvents),
    ])
    try body(ReportFixture(database: database, shop: shop))
  }

  private var queries: ReportQueries { ReportQueries(database: database) }

  private func range(_ from: String, _ to: String) throws -> DayRange {
    DayRange(
      fromDay: try #require(Timestamp.parseDate(from)), toDay: try #require(Timestamp.parseDate(to))
    )
  }

  /// One line per update: id, first seen, last seen, events by action.
  func updates(_ from: String, _ to: String, _ test: TestFilter) throws -> String {
    try queries.updates(appNo: shop, range: range(from, to), test: test).map { update in
      ([
        update.updateId, Timestamp.formatRFC3339(update.firstSeenMs),
        Timestamp.formatRFC3339(update.lastSeenMs),
      ]
        + update.events.map(String.init)).joined(separator: " ")
    }.joined(separator: "\n")
  }

  func update(_ updateId: String, _ from: String, _ to: String, _ test: TestFilter) throws
    -> UpdateDetail
  {
    try queries.update(appNo: shop, updateId: updateId, range: range(from, to), test: test)
  }

  /// Events/installs by action, the three rates, then one line per day.
  func describe(_ detail: UpdateDetail) -> String {
    let actions = Action.allCases.map { action in
      "\(action.name) \(detail.actions[action.rawValue].events)/\(detail.actions[action.rawValue].installs)"
    }
    let rates = [Action.download, .later, .ignore].map { detail.rate($0).map { "\($0)" } ?? "nil" }
    let days = detail.days.map { day in
      ([Timestamp.formatDate(dayNumber: day.day)] + day.events.map(String.init)).joined(
        separator: " ")
    }
    return ([actions.joined(separator: " "), "rates " + rates.joined(separator: " ")] + days)
      .joined(separator: "\n")
  }

  /// One line per row: the key values ("-" for none), events, installs.
  func grouped(
    _ keys: [GroupKey], _ from: String, _ to: String, granularity: Granularity = .day,
    test: TestFilter = .exclude
  ) throws -> String {
    try queries.grouped(
      appNo: shop, keys: keys, granularity: granularity, range: range(from, to), test: test
    ).map(Self.line).joined(separator: "\n")
  }

  /// A row as text: the key values ("-" for none), events, installs.
  static func line(_ row: GroupedRow) -> String {
    (row.keys.map { $0 ?? "-" } + [String(row.events), String(row.installs)]).joined(
      separator: " ")
  }
}
