import Testing
import UptakeCore
import UptakeTestSupport

@testable import uptake

/// 2026-03-01 and 2026-03-31 as days since 1970-01-01.
private let march1: Int64 = 20_513
private let march31: Int64 = 20_543

/// The last 30 days up to and including today, the default range.
private func lastThirtyDays() -> DayRange {
  let today = Days().today
  return DayRange(fromDay: today - 29, toDay: today)
}

@Suite("uptake export and report: their command lines")
struct ReportCommandsTests {
  @Test("export --app APPID: the last 30 days by date, update and action, test events left out")
  func exportDefaults() throws {
    let export = try ExportCommand(arguments: ["--app", "shop"])
    #expect(export.appId == "shop")
    #expect(export.range == lastThirtyDays())
    #expect(export.groupBy == [.date, .updateId, .action])
    #expect(export.test == .exclude)
    #expect(export.stateFile == nil)
    #expect(export.outputPath == nil)
  }

  @Test("export with every option")
  func exportOptions() throws {
    let export = try ExportCommand(arguments: [
      "--app=shop", "--from", "2026-03-01", "--to", "2026-03-31", "--group-by",
      "platform, appVersion", "--test", "only", "-o", "out.csv", "--db", "a.db",
    ])
    #expect(export.range == DayRange(fromDay: march1, toDay: march31))
    #expect(export.groupBy == [.platform, .appVersion])
    #expect(export.test == .only)
    #expect(export.outputPath == "out.csv")
    #expect(export.databasePath == "a.db")
  }

  @Test("--to alone ends a 30-day range; --from alone starts one that ends today")
  func halfRanges() throws {
    let to = try ExportCommand(arguments: ["--app", "shop", "--to", "2026-03-31"])
    #expect(to.range == DayRange(fromDay: march31 - 29, toDay: march31))
    let from = try ReportCommand(arguments: ["--app", "shop", "--from", "2026-03-01"])
    #expect(from.range == DayRange(fromDay: march1, toDay: Days().today))
  }

  @Test("export --since-last FILE picks the days itself")
  func sinceLast() throws {
    let export = try ExportCommand(arguments: ["--app", "shop", "--since-last", "state"])
    #expect(export.stateFile == "state")
    #expect(export.range == nil)
  }

  @Test(
    "export refuses",
    arguments: [
      ([], "--app is required"),
      (["--app", "shop", "out.csv"], "unexpected argument out.csv"),
      (
        ["--app", "shop", "--since-last", "s", "--to", "2026-03-31"],
        "--since-last chooses the days itself; drop --from and --to"
      ),
      (["--app", "shop", "--from", "yesterday"], "--from: not a date (use YYYY-MM-DD)"),
      (["--app", "shop", "--to", "2026-02-29"], "--to: not a date (use YYYY-MM-DD)"),
      (["--app", "shop", "--from", "2026-03-31", "--to", "2026-03-01"], "--from: after to"),
      (
        ["--app", "shop", "--group-by", "date,nope"],
        #"--group-by: unknown key "nope" (use date, updateId, action, appVersion, platform, osVersion)"#
      ),
      (["--app", "shop", "--group-by", "date,date"], #"--group-by: "date" given twice"#),
      (["--app", "shop", "--test", "all"], "--test: use exclude, include or only"),
      (["--app", "shop", "--update", "u1"], "unknown option --update"),
      (["--app", "shop", "-o"], "-o needs a value"),
    ])
  func exportRefuses(arguments: [String], message: String) {
    #expect(refusal(ExportCommand.self, arguments) == .usage(message))
  }

  @Test("report --app APPID: every update of the last 30 days, test events left out")
  func reportDefaults() throws {
    let report = try ReportCommand(arguments: ["--app", "shop"])
    #expect(report.appId == "shop")
    #expect(report.updateId == nil)
    #expect(report.range == lastThirtyDays())
    #expect(report.test == .exclude)
  }

  @Test("report with one update and every option")
  func reportOptions() throws {
    let report = try ReportCommand(arguments: [
      "--update", "782000001589015", "--app", "shop", "--from", "2026-03-01", "--to",
      "2026-03-31", "--test", "include", "--db", "a.db",
    ])
    #expect(report.updateId == "782000001589015")
    #expect(report.range == DayRange(fromDay: march1, toDay: march31))
    #expect(report.test == .include)
    #expect(report.databasePath == "a.db")
  }

  @Test("report --clickhouse URL[,URL...] reads the cluster; without it, the database")
  func reportInCluster() throws {
    #expect(try ReportCommand(arguments: ["--app", "shop"]).cluster == nil)
    let report = try ReportCommand(arguments: [
      "--app", "shop", "--update", "u1", "--clickhouse", "http://a:8123,http://b:8123",
      "--clickhouse-database", "events", "--clickhouse-cluster", "uptake",
    ])
    let cluster = try #require(report.cluster)
    #expect(cluster.servers.map(\.url.absoluteString) == ["http://a:8123", "http://b:8123"])
    #expect(cluster.database == "events")
    #expect(cluster.cluster == "uptake")
  }

  @Test(
    "report refuses",
    arguments: [
      ([], "--app is required"),
      (["--app", "shop", "u1"], "unexpected argument u1"),
      (["--app", "shop", "--update", "no spaces"], "--update: use 1 to 64 of A-Z a-z 0-9 . _ : -"),
      (["--app", "shop", "--to", "31.03.2026"], "--to: not a date (use YYYY-MM-DD)"),
      (["--app", "shop", "--test", "yes"], "--test: use exclude, include or only"),
      (["--app", "shop", "--group-by", "date"], "unknown option --group-by"),
      (["--app", "shop", "--since-last", "state"], "unknown option --since-last"),
      (
        ["--app", "shop", "--clickhouse", "ch1:8123"],
        #"--clickhouse needs http://HOST:PORT URLs separated by commas, not "ch1:8123""#
      ),
    ])
  func reportRefuses(arguments: [String], message: String) {
    #expect(refusal(ReportCommand.self, arguments) == .usage(message))
  }
}
