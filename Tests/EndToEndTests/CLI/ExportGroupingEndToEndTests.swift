import Foundation
import Testing
import UptakeTestSupport

/// `uptake export --group-by` and `--test` over events posted through the
/// real daemon on the two days before today (D2, D1):
///
///     id  time       update  action      appVersion  install  platform  osVersion
///     1   D2 10:00   u1      impression  1.10.0      i1       ios       17.4
///     2   D2 11:00   u1      impression  1.9.0       i2       android   14
///     3   D1 09:00   u1      download    1.9.0       i2       android   14
///     4   D1 10:00   u2      later       2.0.0       -        -         -
///     5   D1 11:00   u1      ignore      1.9.0       i3       ios       17.10   test
///     6   D1 12:00   u1      impression  1.9.0       i3       ios       17.10   test
@Suite("uptake export: --group-by columns and order, --test", .timeLimit(.minutes(3)))
struct ExportGroupingEndToEndTests {
  let days = Days()

  private func withEvents(_ body: (DaemonFixture) throws -> Void) throws {
    let events = [
      eventJSON(
        id: "1", action: "impression", appVersion: "1.10.0", installId: "i1",
        timestamp: days.time(-2, "10:00:00"), platform: "ios", osVersion: "17.4"),
      eventJSON(
        id: "2", action: "impression", appVersion: "1.9.0", installId: "i2",
        timestamp: days.time(-2, "11:00:00"), platform: "android", osVersion: "14"),
      eventJSON(
        id: "3", action: "download", appVersion: "1.9.0", installId: "i2",
        timestamp: days.time(-1, "09:00:00"), platform: "android", osVersion: "14"),
      eventJSON(
        id: "4", updateId: "u2", action: "later", appVersion: "2.0.0",
        timestamp: days.time(-1, "10:00:00")),
      eventJSON(
        id: "5", action: "ignore", appVersion: "1.9.0", installId: "i3",
        timestamp: days.time(-1, "11:00:00"), platform: "ios", osVersion: "17.10", test: true),
      eventJSON(
        id: "6", action: "impression", appVersion: "1.9.0", installId: "i3",
        timestamp: days.time(-1, "12:00:00"), platform: "ios", osVersion: "17.10", test: true),
    ]
    try DaemonFixture.with(posted: events, body)
  }

  private func export(_ fixture: DaemonFixture, _ extra: [String]) throws -> CommandResult {
    try uptake(
      ["export", "--app", "default", "--from", days.date(-2), "--to", days.date(-1)] + extra
        + ["--db", fixture.databasePath])
  }

  @Test("--group-by names the columns in snake case, in the order given")
  func header() throws {
    try withEvents { (fixture) throws in
      let result = try export(
        fixture, ["--group-by", "osVersion,platform,appVersion,action,updateId,date"])

      #expect(result.status == 0, "\(result.standardError)")
      #expect(
        result.standardOutput
          == "os_version,platform,app_version,action,update_id,date,events,installs\r\n"
          + ",,2.0.0,later,u2,\(days.date(-1)),1,0\r\n"
          + "14,android,1.9.0,download,u1,\(days.date(-1)),1,1\r\n"
          + "14,android,1.9.0,impression,u1,\(days.date(-2)),1,1\r\n"
          + "17.4,ios,1.10.0,impression,u1,\(days.date(-2)),1,1\r\n")
    }
  }

  @Test("rows sorted as /v1/report: versions in version order, a missing value first")
  func versionOrder() throws {
    try withEvents { (fixture) throws in
      let byApp = try export(fixture, ["--group-by", "appVersion"])
      let byPlatform = try export(fixture, ["--group-by", "platform", "--test", "include"])
      let report = try fixture.report(
        "/v1/report?from=\(days.date(-2))&to=\(days.date(-1))&groupBy=appVersion&format=csv")

      #expect(
        byApp.standardOutput
          == "app_version,events,installs\r\n" + "1.9.0,2,1\r\n" + "1.10.0,1,1\r\n"
          + "2.0.0,1,0\r\n")
      #expect(
        report.text.split(separator: "\r\n").dropFirst()
          == byApp.standardOutput.split(separator: "\r\n").dropFirst(),
        "the same rows as GET /v1/report")
      #expect(
        byPlatform.standardOutput
          == "platform,events,installs\r\n" + ",1,0\r\n" + "android,2,1\r\n" + "ios,3,2\r\n")
    }
  }

  @Test("--test only exports test events alone")
  func testOnly() throws {
    try withEvents { (fixture) throws in
      let result = try export(fixture, ["--test", "only"])
      let grouped = try export(fixture, ["--test", "only", "--group-by", "osVersion,action"])

      #expect(result.status == 0, "\(result.standardError)")
      #expect(
        result.standardOutput
          == "date,update_id,action,events,installs\r\n"
          + "\(days.date(-1)),u1,ignore,1,1\r\n"
          + "\(days.date(-1)),u1,impression,1,1\r\n")
      #expect(
        grouped.standardOutput
          == "os_version,action,events,installs\r\n" + "17.10,ignore,1,1\r\n"
          + "17.10,impression,1,1\r\n")
    }
  }

  @Test("a bad --group-by, --test or date is a usage error (64) naming the flag")
  func usageErrors() throws {
    try withEvents { (fixture) throws in
      let db = fixture.databasePath
      let cases: [(arguments: [String], message: String)] = [
        (
          ["--group-by", "date,bogus"],
          #"uptake export: --group-by: unknown key "bogus" (use date, updateId, action, appVersion, platform, osVersion)"#
        ),
        (["--group-by", "action,action"], #"uptake export: --group-by: "action" given twice"#),
        (["--group-by", ""], #"uptake export: --group-by: unknown key "" (use"#),
        (["--group-by", "update_id"], #"uptake export: --group-by: unknown key "update_id""#),
        (["--test", "all"], "uptake export: --test: use exclude, include or only"),
        (["--from", "2026-02-30"], "uptake export: --from: not a date (use YYYY-MM-DD)"),
        (
          ["--from", days.date(0), "--to", days.date(-1)], "uptake export: --from: after to"
        ),
      ]
      for (arguments, message) in cases {
        let result = try uptake(["export", "--app", "default"] + arguments + ["--db", db])
        #expect(result.status == 64, "\(arguments)")
        #expect(result.standardOutput == "", "\(arguments)")
        #expect(result.standardError.hasPrefix(message), "\(arguments): \(result.standardError)")
        #expect(result.standardError.contains("usage: uptake export"), "the help follows")
      }
    }
  }
}
