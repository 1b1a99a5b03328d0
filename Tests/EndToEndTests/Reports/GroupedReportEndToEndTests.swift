import Foundation
import Testing
import UptakeTestSupport

/// `GET /v1/report` over events posted through the real daemon, on the two
/// days before today (D2, D1), with every figure worked out by hand:
///
///     id  time       update  action      appVersion  install  platform  osVersion
///     1   D2 10:15   u1      impression  1.10.0      i1       ios       17.4
///     2   D2 10:45   u1      impression  1.9.0       i2       android   14
///     3   D2 11:05   u1      download    1.10.0      i1       ios       17.4
///     4   D1 09:00   u2      later       1.9.0       i2       android   14
///     5   D1 09:30   u2      impression  1.9.0       -        -         -
///     6   D1 09:40   u1      ignore      2.0.0       i3       ios       17.10   test
///
/// The versions are chosen so that text order and version order disagree
/// (`1.10.0` > `1.9.0`, `17.10` > `17.4`).
@Suite("GET /v1/report: events and installs grouped by keys", .timeLimit(.minutes(3)))
struct GroupedReportEndToEndTests {
  let days = Days()

  private func withEvents(_ body: (DaemonFixture) throws -> Void) throws {
    let events = [
      eventJSON(
        id: "1", action: "impression", appVersion: "1.10.0", installId: "i1",
        timestamp: days.time(-2, "10:15:00"), platform: "ios", osVersion: "17.4"),
      eventJSON(
        id: "2", action: "impression", appVersion: "1.9.0", installId: "i2",
        timestamp: days.time(-2, "10:45:00"), platform: "android", osVersion: "14"),
      eventJSON(
        id: "3", action: "download", appVersion: "1.10.0", installId: "i1",
        timestamp: days.time(-2, "11:05:00"), platform: "ios", osVersion: "17.4"),
      eventJSON(
        id: "4", updateId: "u2", action: "later", appVersion: "1.9.0", installId: "i2",
        timestamp: days.time(-1, "09:00:00"), platform: "android", osVersion: "14"),
      eventJSON(
        id: "5", updateId: "u2", action: "impression", appVersion: "1.9.0",
        timestamp: days.time(-1, "09:30:00")),
      eventJSON(
        id: "6", action: "ignore", appVersion: "2.0.0", installId: "i3",
        timestamp: days.time(-1, "09:40:00"), platform: "ios", osVersion: "17.10", test: true),
    ]
    try DaemonFixture.with(posted: events, body)
  }

  private var range: String { "from=\(days.date(-2))&to=\(days.date(-1))" }

  @Test("by default: date, updateId, action, sorted by them; test events left out")
  func defaultGrouping() throws {
    try withEvents { (fixture) throws in
      let response = try fixture.report("/v1/report?\(range)")

      #expect(response.status == 200)
      #expect(response.header("Content-Type") == "application/json")
      #expect(
        response.text
          == """
          {"rows":[\
          {"date":"\(days.date(-2))","updateId":"u1","action":"download","events":1,"installs":1},\
          {"date":"\(days.date(-2))","updateId":"u1","action":"impression","events":2,"installs":2},\
          {"date":"\(days.date(-1))","updateId":"u2","action":"impression","events":1,"installs":0},\
          {"date":"\(days.date(-1))","updateId":"u2","action":"later","events":1,"installs":1}]}
          """)
      let explicit = try fixture.report("/v1/report?\(range)&groupBy=date,updateId,action")
      #expect(explicit.text == response.text)
    }
  }

  @Test("CSV has the JSON member names as its header, with format=csv or Accept: text/csv")
  func csv() throws {
    try withEvents { (fixture) throws in
      let byFormat = try fixture.report("/v1/report?\(range)&format=csv")
      let byAccept = try fixture.report("/v1/report?\(range)", headers: ["Accept": "text/csv"])

      #expect(byFormat.status == 200)
      #expect(byFormat.header("Content-Type") == "text/csv; charset=utf-8")
      #expect(
        byFormat.text
          == "date,updateId,action,events,installs\r\n"
          + "\(days.date(-2)),u1,download,1,1\r\n"
          + "\(days.date(-2)),u1,impression,2,2\r\n"
          + "\(days.date(-1)),u2,impression,1,0\r\n"
          + "\(days.date(-1)),u2,later,1,1\r\n")
      #expect(byAccept.text == byFormat.text)
    }
  }

  @Test("appVersion sorts in version order: 1.9.0 before 1.10.0")
  func appVersionOrder() throws {
    try withEvents { (fixture) throws in
      let response = try fixture.report("/v1/report?\(range)&groupBy=appVersion")

      #expect(
        response.text
          == """
          {"rows":[{"appVersion":"1.9.0","events":3,"installs":1},\
          {"appVersion":"1.10.0","events":2,"installs":1}]}
          """)
    }
  }

  @Test("keys come in the order asked for; a missing value is null in JSON, empty in CSV")
  func keyOrderAndMissingValues() throws {
    try withEvents { (fixture) throws in
      let json = try fixture.report("/v1/report?\(range)&groupBy=platform,date")
      let csv = try fixture.report("/v1/report?\(range)&groupBy=platform,date&format=csv")

      #expect(
        json.text
          == """
          {"rows":[{"platform":null,"date":"\(days.date(-1))","events":1,"installs":0},\
          {"platform":"android","date":"\(days.date(-2))","events":1,"installs":1},\
          {"platform":"android","date":"\(days.date(-1))","events":1,"installs":1},\
          {"platform":"ios","date":"\(days.date(-2))","events":2,"installs":1}]}
          """)
      #expect(
        csv.text
          == "platform,date,events,installs\r\n"
          + ",\(days.date(-1)),1,0\r\n"
          + "android,\(days.date(-2)),1,1\r\n"
          + "android,\(days.date(-1)),1,1\r\n"
          + "ios,\(days.date(-2)),2,1\r\n")
    }
  }

  @Test("action then updateId: the same counts, sorted by the first key given")
  func reversedKeys() throws {
    try withEvents { (fixture) throws in
      let response = try fixture.report("/v1/report?\(range)&groupBy=action,updateId&format=csv")

      #expect(
        response.text
          == "action,updateId,events,installs\r\n"
          + "download,u1,1,1\r\n"
          + "impression,u1,2,2\r\n"
          + "impression,u2,1,0\r\n"
          + "later,u2,1,1\r\n")
    }
  }

  @Test("granularity=hour buckets date by hour as YYYY-MM-DDTHH")
  func hourly() throws {
    try withEvents { (fixture) throws in
      let response = try fixture.report(
        "/v1/report?\(range)&groupBy=date,updateId&granularity=hour")

      #expect(
        response.text
          == """
          {"rows":[{"date":"\(days.date(-2))T10","updateId":"u1","events":2,"installs":2},\
          {"date":"\(days.date(-2))T11","updateId":"u1","events":1,"installs":1},\
          {"date":"\(days.date(-1))T09","updateId":"u2","events":2,"installs":1}]}
          """)
      let daily = try fixture.report("/v1/report?\(range)&groupBy=date,updateId&granularity=day")
      #expect(
        daily.text
          == """
          {"rows":[{"date":"\(days.date(-2))","updateId":"u1","events":3,"installs":2},\
          {"date":"\(days.date(-1))","updateId":"u2","events":2,"installs":1}]}
          """)
    }
  }

  @Test("osVersion in version order with test=include; test=only counts test events alone")
  func testFilterAndOsVersionOrder() throws {
    try withEvents { (fixture) throws in
      let included = try fixture.report("/v1/report?\(range)&groupBy=osVersion&test=include")
      let only = try fixture.report("/v1/report?\(range)&groupBy=action&test=only")

      #expect(
        included.text
          == """
          {"rows":[{"osVersion":null,"events":1,"installs":0},\
          {"osVersion":"14","events":2,"installs":1},\
          {"osVersion":"17.4","events":2,"installs":1},\
          {"osVersion":"17.10","events":1,"installs":1}]}
          """)
      #expect(only.text == #"{"rows":[{"action":"ignore","events":1,"installs":1}]}"#)
    }
  }

  @Test("all six keys at once")
  func everyKey() throws {
    try withEvents { (fixture) throws in
      let response = try fixture.report(
        "/v1/report?from=\(days.date(-2))&to=\(days.date(-2))"
          + "&groupBy=osVersion,platform,appVersion,action,updateId,date&format=csv")

      #expect(
        response.text
          == "osVersion,platform,appVersion,action,updateId,date,events,installs\r\n"
          + "14,android,1.9.0,impression,u1,\(days.date(-2)),1,1\r\n"
          + "17.4,ios,1.10.0,download,u1,\(days.date(-2)),1,1\r\n"
          + "17.4,ios,1.10.0,impression,u1,\(days.date(-2)),1,1\r\n")
    }
  }

  @Test("a range without events has no rows")
  func emptyRange() throws {
    try withEvents { (fixture) throws in
      let json = try fixture.report("/v1/report?from=2020-01-01&to=2020-01-31")
      let csv = try fixture.report(
        "/v1/report?from=2020-01-01&to=2020-01-31&groupBy=action&format=csv")

      #expect(json.status == 200)
      #expect(json.text == #"{"rows":[]}"#)
      #expect(csv.text == "action,events,installs\r\n")
    }
  }

  @Test("an unknown or repeated key, an unknown granularity, a bad date: 400 bad_request")
  func badParameters() throws {
    try withEvents { (fixture) throws in
      let cases: [(query: String, message: String?)] = [
        (
          "groupBy=date,bogus",
          #"groupBy: unknown key "bogus" (use date, updateId, action, appVersion, platform, osVersion)"#
        ),
        ("groupBy=action,date,action", #"groupBy: "action" given twice"#),
        ("groupBy=", nil),
        ("groupBy=date,,action", nil),
        ("granularity=minute", "granularity: use day or hour"),
        ("granularity=", "granularity: use day or hour"),
        ("from=2026-02-30", nil),
        ("to=2026-13-01", nil),
        ("from=\(days.date(0))&to=\(days.date(-1))", nil),
        ("test=all", nil),
        ("format=xml", nil),
      ]
      for (query, message) in cases {
        let response = try fixture.report("/v1/report?\(query)")
        #expect(response.status == 400, "\(query)")
        let error = ErrorBody(response.body)
        #expect(error?.code == "bad_request", "\(query): \(response.text)")
        if let message { #expect(error?.message == message, "\(query)") }
      }
    }
  }

  @Test("the report needs the read key")
  func needsReadKey() throws {
    try withEvents { (fixture) throws in
      let client = HTTPClient()
      #expect(try client.get(fixture.daemon.url("/v1/report")).status == 401)
      #expect(
        try client.get(fixture.daemon.url("/v1/report"), key: fixture.ingestKey).status == 401)
      #expect(try client.send("POST", fixture.daemon.url("/v1/report")).status == 405)
    }
  }
}
