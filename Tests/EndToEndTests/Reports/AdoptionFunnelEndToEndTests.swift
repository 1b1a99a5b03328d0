import Foundation
import Testing
import UptakeTestSupport

/// `GET /v1/adoption` and `GET /v1/updates/{updateId}/funnel` over a small
/// set of events on the two days before today (D2, D1), the figures worked
/// out by hand:
///
///     id   time       install  update  action      appVersion
///     e1   D2 10:00   i1       u1      impression  1.0.0
///     e2   D2 10:00   i2       u1      impression  1.0.0
///     e3   D2 10:30   i1       u1      download    1.0.0
///     e4   D2 10:15   i2       u1      download    1.0.0
///     e5   D2 09:00   i3       u1      download    1.0.0     before its impression
///     e6   D2 09:30   i3       u1      impression  1.0.0
///     e7   D2 11:00   i4       u2      impression  0.9.0
///     e8   D2 12:00   i1       u2      impression  1.1.0     i1 upgraded, 2 h after e1
///     e9   D1 15:00   i2       u2      later       1.9.0     i2 upgraded, 29 h after e2
///     e10  D1 10:00   i3       u1      later       1.10.0    higher, but i3 never downloaded
///     e11  D1 11:00   i5       u1      impression  1.9.0     test
///
/// Funnel of u1: impressions i1, i2, i3 = 3; downloads at or after the first
/// impression i1, i2 = 2 (i3 downloaded before it); upgraded i1, i2 = 2;
/// median of 2 h and 29 h = 15.5 h.
///
/// Adoption: D2 has installs i1..i4: 0.9.0 {i4}, 1.0.0 {i1, i2, i3},
/// 1.1.0 {i1}; D1 has i2 and i3: 1.9.0 {i2}, 1.10.0 {i3} (plus i5 on 1.9.0
/// when test events count).
@Suite("GET /v1/adoption and /v1/updates/{id}/funnel", .timeLimit(.minutes(3)))
struct AdoptionFunnelEndToEndTests {
  let days = Days()

  private func withEvents(_ body: (DaemonFixture) throws -> Void) throws {
    func event(
      _ id: String, _ day: Int64, _ clock: String, _ install: String, _ update: String,
      _ action: String, _ version: String, test: Bool? = nil
    ) -> String {
      eventJSON(
        id: id, updateId: update, action: action, appVersion: version, installId: install,
        timestamp: days.time(day, clock), test: test)
    }
    let events = [
      event("e1", -2, "10:00:00", "i1", "u1", "impression", "1.0.0"),
      event("e2", -2, "10:00:00", "i2", "u1", "impression", "1.0.0"),
      event("e3", -2, "10:30:00", "i1", "u1", "download", "1.0.0"),
      event("e4", -2, "10:15:00", "i2", "u1", "download", "1.0.0"),
      event("e5", -2, "09:00:00", "i3", "u1", "download", "1.0.0"),
      event("e6", -2, "09:30:00", "i3", "u1", "impression", "1.0.0"),
      event("e7", -2, "11:00:00", "i4", "u2", "impression", "0.9.0"),
      event("e8", -2, "12:00:00", "i1", "u2", "impression", "1.1.0"),
      event("e9", -1, "15:00:00", "i2", "u2", "later", "1.9.0"),
      event("e10", -1, "10:00:00", "i3", "u1", "later", "1.10.0"),
      event("e11", -1, "11:00:00", "i5", "u1", "impression", "1.9.0", test: true),
    ]
    try DaemonFixture.with(posted: events, body)
  }

  private var range: String { "from=\(days.date(-2))&to=\(days.date(-1))" }

  @Test("funnel: impressions, downloads after them, upgrades after those, median hours")
  func funnel() throws {
    try withEvents { (fixture) throws in
      let response = try fixture.report("/v1/updates/u1/funnel?\(range)")

      #expect(response.status == 200)
      #expect(response.header("Content-Type") == "application/json")
      #expect(
        response.text
          == #"{"impressions":3,"downloads":2,"upgraded":2,"medianHoursToUpgrade":15.5}"#)
    }
  }

  @Test("funnel without upgrades has a null median; CSV is one row with the same columns")
  func funnelWithoutUpgrades() throws {
    try withEvents { (fixture) throws in
      let json = try fixture.report("/v1/updates/u2/funnel?\(range)")
      let csv = try fixture.report("/v1/updates/u1/funnel?\(range)&format=csv")
      let emptyCSV = try fixture.report(
        "/v1/updates/u2/funnel?\(range)", headers: ["Accept": "text/csv"])

      #expect(
        json.text == #"{"impressions":2,"downloads":0,"upgraded":0,"medianHoursToUpgrade":null}"#)
      #expect(csv.header("Content-Type") == "text/csv; charset=utf-8")
      #expect(csv.text == "impressions,downloads,upgraded,medianHoursToUpgrade\r\n3,2,2,15.5\r\n")
      #expect(emptyCSV.text == "impressions,downloads,upgraded,medianHoursToUpgrade\r\n2,0,0,\r\n")
    }
  }

  @Test("funnel counts only events in the range; an update without any is all zero")
  func funnelRange() throws {
    try withEvents { (fixture) throws in
      // On D1 alone no install saw u1's prompt (e11 is a test event).
      let dayOne = try fixture.report(
        "/v1/updates/u1/funnel?from=\(days.date(-1))&to=\(days.date(-1))")
      let unknown = try fixture.report("/v1/updates/u9/funnel?\(range)")
      let withTest = try fixture.report("/v1/updates/u1/funnel?\(range)&test=include")

      #expect(
        dayOne.text == #"{"impressions":0,"downloads":0,"upgraded":0,"medianHoursToUpgrade":null}"#)
      #expect(dayOne.text == unknown.text)
      #expect(
        withTest.text
          == #"{"impressions":4,"downloads":2,"upgraded":2,"medianHoursToUpgrade":15.5}"#)
    }
  }

  @Test("adoption: installs per date and version in version order, share of the day's installs")
  func adoption() throws {
    try withEvents { (fixture) throws in
      let response = try fixture.report("/v1/adoption?\(range)")

      #expect(response.status == 200)
      #expect(response.header("Content-Type") == "application/json")
      #expect(
        response.text
          == """
          {"rows":[\
          {"date":"\(days.date(-2))","appVersion":"0.9.0","installs":1,"share":0.25},\
          {"date":"\(days.date(-2))","appVersion":"1.0.0","installs":3,"share":0.75},\
          {"date":"\(days.date(-2))","appVersion":"1.1.0","installs":1,"share":0.25},\
          {"date":"\(days.date(-1))","appVersion":"1.9.0","installs":1,"share":0.5},\
          {"date":"\(days.date(-1))","appVersion":"1.10.0","installs":1,"share":0.5}],\
          "versions":["0.9.0","1.0.0","1.1.0","1.9.0","1.10.0"]}
          """)
    }
  }

  @Test("adoption CSV; test=include and test=only choose the installs")
  func adoptionTestFilter() throws {
    try withEvents { (fixture) throws in
      let included = try fixture.report(
        "/v1/adoption?from=\(days.date(-1))&to=\(days.date(-1))&test=include&format=csv")
      let only = try fixture.report("/v1/adoption?\(range)&test=only")

      #expect(included.header("Content-Type") == "text/csv; charset=utf-8")
      #expect(
        included.text
          == "date,appVersion,installs,share\r\n"
          + "\(days.date(-1)),1.9.0,2,0.666667\r\n"
          + "\(days.date(-1)),1.10.0,1,0.333333\r\n")
      #expect(
        only.text
          == #"{"rows":[{"date":"\#(days.date(-1))","appVersion":"1.9.0","installs":1,"share":1}],"versions":["1.9.0"]}"#
      )
    }
  }

  @Test("bad parameters and update ids are 400 bad_request")
  func badParameters() throws {
    try withEvents { (fixture) throws in
      for path in [
        "/v1/adoption?from=2026-02-30", "/v1/adoption?from=\(days.date(0))&to=\(days.date(-1))",
        "/v1/adoption?test=some", "/v1/updates/u1/funnel?to=tomorrow",
        "/v1/updates/u1/funnel?from=\(days.date(0))&to=\(days.date(-1))",
        "/v1/updates/bad!id/funnel",
        "/v1/updates/\(String(repeating: "u", count: 65))/funnel",
      ] {
        let response = try fixture.report(path)
        #expect(response.status == 400, "\(path)")
        #expect(ErrorBody(response.body)?.code == "bad_request", "\(path): \(response.text)")
      }
    }
  }
}
