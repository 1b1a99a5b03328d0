import Foundation
import Testing
import UptakeTestSupport

/// `uptake report` over events posted through the real daemon on the two days
/// before today (D2, D1):
///
///     id  time       update  action      install  appVersion
///     e1  D2 10:00   u1      impression  i1       1.0.0
///     e2  D2 11:00   u1      impression  i2       1.0.0
///     e3  D2 11:30   u1      impression  i3       1.0.0
///     e4  D2 12:00   u1      download    i1       1.0.0
///     e5  D1 09:00   u1      later       i2       1.0.0
///     e6  D1 09:30   u1      later       i3       1.0.0
///     e7  D1 10:00   u1      ignore      i2       1.0.0
///     e8  D1 13:00   u2      ignore      i1       2.0.0   i1 upgraded, 27 h after e1
///     e9  D1 14:00   u3      impression  -        2.0.0
///
/// u1: 3 installs saw it; 1 downloaded (33.3%), 2 chose later (66.7%), 1
/// ignored (33.3%). u2 and u3 have no installs with an impression, so no
/// rates. u1's funnel: 3 impressions, 1 download, 1 upgraded, median 27 h.
@Suite("uptake report: the reports as tables for a person", .timeLimit(.minutes(3)))
struct ReportCommandEndToEndTests {
  let days = Days()

  private func withEvents(_ body: (DaemonFixture) throws -> Void) throws {
    func event(
      _ id: String, _ day: Int64, _ clock: String, _ update: String, _ action: String,
      _ install: String?, _ version: String = "1.0.0"
    ) -> String {
      eventJSON(
        id: id, updateId: update, action: action, appVersion: version, installId: install,
        timestamp: days.time(day, clock))
    }
    let events = [
      event("e1", -2, "10:00:00", "u1", "impression", "i1"),
      event("e2", -2, "11:00:00", "u1", "impression", "i2"),
      event("e3", -2, "11:30:00", "u1", "impression", "i3"),
      event("e4", -2, "12:00:00", "u1", "download", "i1"),
      event("e5", -1, "09:00:00", "u1", "later", "i2"),
      event("e6", -1, "09:30:00", "u1", "later", "i3"),
      event("e7", -1, "10:00:00", "u1", "ignore", "i2"),
      event("e8", -1, "13:00:00", "u2", "ignore", "i1", "2.0.0"),
      event("e9", -1, "14:00:00", "u3", "impression", nil, "2.0.0"),
    ]
    try DaemonFixture.with(posted: events, body)
  }

  private func report(_ fixture: DaemonFixture, _ extra: [String] = []) throws -> CommandResult {
    try uptake(
      ["report", "--app", "default", "--from", days.date(-2), "--to", days.date(-1)] + extra
        + ["--db", fixture.databasePath])
  }

  @Test("every update: first and last seen, events by action, rates as percentages")
  func updates() throws {
    try withEvents { (fixture) throws in
      let result = try report(fixture)
      let (d2, d1) = (days.date(-2), days.date(-1))

      #expect(result.status == 0, "\(result.standardError)")
      #expect(result.standardError == "")
      #expect(
        result.standardOutput
          == """
          updates of app default, \(d2) to \(d1)

          UPDATE  FIRST SEEN            LAST SEEN             IMPRESSION  DOWNLOAD  LATER  IGNORE  DOWNLOAD%  LATER%  IGNORE%
          u1      \(d2)T10:00:00Z  \(d1)T10:00:00Z           3         1      2       1      33.3%   66.7%    33.3%
          u2      \(d1)T13:00:00Z  \(d1)T13:00:00Z           0         0      0       1          —       —        —
          u3      \(d1)T14:00:00Z  \(d1)T14:00:00Z           1         0      0       0          —       —        —

          """)
    }
  }

  @Test("one update: by action with rates, by day, and its funnel")
  func oneUpdate() throws {
    try withEvents { (fixture) throws in
      let result = try report(fixture, ["--update", "u1"])
      let (d2, d1) = (days.date(-2), days.date(-1))

      #expect(result.status == 0, "\(result.standardError)")
      #expect(
        result.standardOutput
          == """
          update u1 of app default, \(d2) to \(d1)

          ACTION      EVENTS  INSTALLS   RATE
          impression       3         3
          download         1         1  33.3%
          later            2         2  66.7%
          ignore           1         1  33.3%

          DATE        IMPRESSION  DOWNLOAD  LATER  IGNORE
          \(d2)           3         1      0       0
          \(d1)           0         0      2       1

          IMPRESSIONS  DOWNLOADS  UPGRADED  MEDIAN HOURS TO UPGRADE
                    3          1         1                     27.0

          """)
    }
  }

  @Test("an update without impressions: no rates, no median; test events only when asked")
  func updateWithoutImpressions() throws {
    try withEvents { (fixture) throws in
      let result = try report(fixture, ["--update", "u2", "--test", "only"])
      let (d2, d1) = (days.date(-2), days.date(-1))

      #expect(result.status == 0, "\(result.standardError)")
      #expect(
        result.standardOutput
          == """
          update u2 of app default, \(d2) to \(d1), test events only

          ACTION      EVENTS  INSTALLS  RATE
          impression       0         0
          download         0         0     —
          later            0         0     —
          ignore           0         0     —

          DATE  IMPRESSION  DOWNLOAD  LATER  IGNORE

          IMPRESSIONS  DOWNLOADS  UPGRADED  MEDIAN HOURS TO UPGRADE
                    0          0         0                        —

          """)
    }
  }

  @Test("exit codes: 64 usage, 65 unknown app, 66 missing database")
  func exitCodes() throws {
    try withEvents { (fixture) throws in
      let db = fixture.databasePath
      let badUpdate = try uptake(["report", "--app", "default", "--update", "a b", "--db", db])
      let badDate = try uptake(["report", "--app", "default", "--from", "2026-02-30", "--db", db])
      let badTest = try uptake(["report", "--app", "default", "--test", "all", "--db", db])
      let noApp = try uptake(["report", "--db", db])
      let unknownApp = try uptake(["report", "--app", "nope", "--db", db])
      let missing = try uptake([
        "report", "--app", "default", "--db", fixture.scratch.path("missing.db"),
      ])
      let help = try uptake(["report", "--help"])
      let groupHelp = try uptake(["apps", "--help"])
      let bareGroup = try uptake(["updates"])

      #expect(badUpdate.status == 64)
      #expect(badUpdate.standardError.hasPrefix("uptake report: --update: use 1 to 64 of"))
      #expect(badDate.status == 64)
      #expect(badDate.standardError.hasPrefix("uptake report: --from: not a date (use YYYY-MM-DD)"))
      #expect(badTest.status == 64)
      #expect(noApp.status == 64)
      #expect(unknownApp.status == 65)
      #expect(unknownApp.standardOutput == "")
      #expect(missing.status == 66)
      #expect(help.status == 0)
      #expect(help.standardOutput.hasPrefix("usage: uptake report --app APPID [--update ID]"))
      #expect(groupHelp.status == 0)
      #expect(groupHelp.standardOutput.hasPrefix("usage: uptake apps add"))
      #expect(
        groupHelp.standardOutput.contains("\nusage: uptake apps rotate APPID --ingest|--read"))
      #expect(bareGroup.status == 64)
      #expect(bareGroup.standardError.contains("usage: uptake updates history"))
    }
  }
}
