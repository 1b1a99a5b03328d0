import Foundation
import Testing
import UptakeTestSupport

/// A client holding the read key may ask for any range `YYYY-MM-DD` can
/// name, 0000-01-01 to 9999-12-31. Every report and export answers it as
/// it answers the days that hold events.
@Suite(
  "Reports over 0000-01-01..9999-12-31 answer as over the stored days", .timeLimit(.minutes(3)))
struct WideRangeEndToEndTests {
  let days = Days()
  static let widest = "from=0000-01-01&to=9999-12-31"

  @Test("every report, JSON and CSV, and export: the same answer as over the stored days")
  func sameAnswers() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    try fixture.post([
      eventJSON(
        id: "1", appVersion: "1.0.0", installId: "i1", timestamp: days.time(-5, "10:00:00"),
        platform: "ios", osVersion: "17.4"),
      eventJSON(
        id: "2", action: "download", appVersion: "1.0.0", installId: "i1",
        timestamp: days.time(-3, "11:00:00"), platform: "ios", osVersion: "17.4"),
      eventJSON(
        id: "3", appVersion: "1.1.0", installId: "i1", timestamp: days.time(-1, "09:00:00"),
        platform: "ios", osVersion: "17.4"),
      eventJSON(
        id: "4", updateId: "u2", action: "later", appVersion: "1.1.0", installId: "i2",
        timestamp: days.time(-1, "12:00:00"), platform: "android", osVersion: "14", test: true),
    ])
    let stored = "from=\(days.date(-5))&to=\(days.date(-1))"
    let reports = [
      "/v1/updates?", "/v1/updates/u1?", "/v1/updates/u1/funnel?", "/v1/adoption?",
      "/v1/report?", "/v1/report?groupBy=appVersion&",
      "/v1/report?groupBy=date,platform&test=include&",
      "/v1/report?groupBy=osVersion,action&granularity=hour&",
      "/v1/report?groupBy=appVersion,updateId&format=csv&test=only&",
    ]

    for report in reports {
      let wide = try fixture.report(report + Self.widest)
      let exact = try fixture.report(report + stored)
      #expect(wide.status == 200, "\(report): \(wide.text)")
      #expect(wide.text == exact.text, "\(report)")
      #expect(exact.text.contains("1"), "\(report) has figures: \(exact.text)")
    }

    func export(_ from: String, _ to: String) throws -> CommandResult {
      try uptake([
        "export", "--app", "default", "--from", from, "--to", to, "--group-by",
        "appVersion,platform", "--test", "include", "--db", fixture.databasePath,
      ])
    }
    let wide = try export("0000-01-01", "9999-12-31")
    let exact = try export(days.date(-5), days.date(-1))
    #expect(wide.status == 0, "\(wide.standardError)")
    #expect(wide.standardOutput == exact.standardOutput)
    #expect(
      exact.standardOutput
        == "app_version,platform,events,installs\r\n" + "1.0.0,ios,2,1\r\n"
        + "1.1.0,android,1,1\r\n" + "1.1.0,ios,1,1\r\n")
  }
}
