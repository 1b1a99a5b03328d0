import Foundation
import Testing
import UptakeCore
import UptakeStore
import UptakeTestSupport

@testable import UptakeCluster

/// A node answers the groups of each day that have not changed from
/// memory (`ReportDayCache`): its reports must stay what the cluster
/// holds as events keep arriving, late ones and duplicates among them.
@Suite(
  "Reports remembered by day and group follow every event that arrives", .serialized,
  .timeLimit(.minutes(3)))
struct ReportDayCacheTests {
  static let firstDay: Int64 = 20_780
  static let range = DayRange(fromDay: firstDay, toDay: firstDay + 9)

  /// Events of installs `installs` on `day`, ids from `firstId`, spread
  /// over two updates, four actions, three versions and both test flags.
  static func events(day: Int64, firstId: Int, count: Int, installs: Int = 40) -> Data {
    var lines = ""
    for index in firstId..<(firstId + count) {
      let action = ["impression", "download", "later", "ignore"][index % 4]
      let platform = index % 5 == 0 ? "null" : #""ios""#
      lines += """
        {"app_id":"shop","id":"e\(index)","update_id":"u\(index % 2)","action":"\(action)",\
        "app_version":"1.\(index % 3)","install_id":"i\(index % installs)","platform":\(platform),\
        "os_version":"17.\(index % 2)","previous_app_version":null,"is_test":\(index % 7 == 0 ? 1 : 0),\
        "ts_ms":\(day * Timestamp.msPerDay + Int64(index % 86_400) * 1000),\
        "received_ms":\(day * Timestamp.msPerDay),"day":"\(Timestamp.formatDate(dayNumber: day))"}

        """
    }
    return Data(lines.utf8)
  }

  /// Every daily report a node answers, as comparable text.
  static func answers(_ reports: ClusterReports) throws -> [String] {
    var answers: [String] = []
    for test in TestFilter.allCases {
      answers.append("\(try reports.updates(appId: "shop", range: range, test: test))")
      answers.append(
        "\(try reports.update(appId: "shop", updateId: "u1", range: range, test: test))")
      answers.append("\(try reports.adoption(appId: "shop", range: range, test: test))")
      for keys: [GroupKey] in [
        [.date, .updateId, .action], [.appVersion, .platform], [], [.action, .date],
      ] {
        answers.append(
          "\(try reports.grouped(appId: "shop", keys: keys, granularity: .day, range: range, test: test))"
        )
      }
    }
    return answers
  }

  @Test(
    "unchanged groups come from memory; changed ones are asked again, and answers stay exact",
    arguments: [500, 2])
  func followsArrivals(maxGroupsAskedByName: Int) throws {
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let layout = try shards.migratedLayout()
    let insert = "INSERT INTO \(layout.insertTable) FORMAT JSONEachRow"
    func add(_ data: Data) throws {
      try layout.servers[0].insert(insert, data: data, settings: ["insert_distributed_sync": "1"])
    }
    for offset in 0..<8 {
      try add(Self.events(day: Self.firstDay + Int64(offset), firstId: offset * 1_000, count: 300))
    }
    // With a limit of 2, every query asks whole days rather than groups.
    let node = ClusterReports(layout: layout, maxGroupsAskedByName: maxGroupsAskedByName)

    let first = try Self.answers(node)
    let asked = node.rememberedGroups.asked
    #expect(asked > 0 && node.rememberedGroups.remembered == 0)
    #expect(first == (try Self.answers(ClusterReports(layout: layout))), "the same as a fresh node")

    // Nothing arrived: every group from memory, the same answers.
    #expect(try Self.answers(node) == first)
    #expect(node.rememberedGroups.asked == asked)
    #expect(node.rememberedGroups.remembered == asked)

    // A late event for the third day, a retried one for the fifth (the
    // same id and content: counted once), and a first event on a new day.
    try add(Self.events(day: Self.firstDay + 2, firstId: 50_000, count: 1, installs: 1))
    try add(Self.events(day: Self.firstDay + 4, firstId: 4_000, count: 1))
    try add(Self.events(day: Self.firstDay + 9, firstId: 90_000, count: 5))

    let after = try Self.answers(node)
    #expect(after != first, "the new events show")
    #expect(after == (try Self.answers(ClusterReports(layout: layout))), "the same as a fresh node")
    // Only the groups that took events in were asked again: fewer than
    // the groups of the two changed days alone (two eighths of the first
    // round's), which asking whole days again would have asked, and more.
    let askedAgain = node.rememberedGroups.asked - asked
    #expect(
      askedAgain > 0 && askedAgain * 4 < asked, "asked \(askedAgain) again, \(asked) at first")
  }

  @Test("the warmer remembers the dashboard's first reports before anyone asks for them")
  func warmer() throws {
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let layout = try shards.migratedLayout()
    let today = Timestamp.dayNumber(ms: WallClock.nowMs())
    for offset in 1...3 {
      try layout.servers[0].insert(
        "INSERT INTO \(layout.insertTable) FORMAT JSONEachRow",
        data: Self.events(day: today - Int64(offset), firstId: offset * 1_000, count: 200),
        settings: ["insert_distributed_sync": "1"])
    }
    let node = ClusterReports(layout: layout)
    let warmer = ReportWarmer(
      reports: node, apps: { ["shop"] }, logger: Logger(minimumLevel: .error),
      intervalSeconds: 0.2)
    warmer.start()
    let deadline = Date().addingTimeInterval(20)
    while node.rememberedGroups.asked == 0 && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.1)
    }
    warmer.stop()
    let asked = node.rememberedGroups.asked
    #expect(asked > 0, "the warmer asked for the groups")

    let range = DayRange.lastThirtyDays(nowMs: WallClock.nowMs())
    let fresh = ClusterReports(layout: layout)
    #expect(
      try node.updates(appId: "shop", range: range, test: .exclude)
        == fresh.updates(appId: "shop", range: range, test: .exclude))
    #expect(
      try node.adoption(appId: "shop", range: range, test: .exclude)
        == fresh.adoption(appId: "shop", range: range, test: .exclude))
    // The dashboard's grouping by update, action and date: the same rows
    // remembered as by date, update and action.
    #expect(
      try node.grouped(
        appId: "shop", keys: [.updateId, .action, .date], granularity: .day, range: range,
        test: .exclude)
        == fresh.grouped(
          appId: "shop", keys: [.updateId, .action, .date], granularity: .day, range: range,
          test: .exclude))
    #expect(node.rememberedGroups.asked == asked, "nothing asked again")
    #expect(node.rememberedGroups.remembered > 0)
  }
}
