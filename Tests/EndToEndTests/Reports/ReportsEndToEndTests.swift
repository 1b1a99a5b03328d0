import Foundation
import Testing
import UptakeTestSupport

/// Reports over events posted through the real daemon. The events, on the
/// two days before today (D2, D1), with the figures worked out by hand:
///
///     D2 10:00  u1 impression  i1
///     D2 11:00  u1 impression  i2
///     D2 12:00  u1 download    i1
///     D1 09:00  u1 later       i2
///     D1 10:00  u1 impression  (no install)
///     D1 11:00  u1 impression  i3   test
///     D1 12:00  u2 ignore      i1
@Suite("uptaked reports over HTTP", .timeLimit(.minutes(3)))
struct ReportsEndToEndTests {
  let days = Days()

  private func withReports(_ body: (DaemonFixture, HTTPClient) throws -> Void) throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let events = [
      eventJSON(
        id: "1", action: "impression", installId: "i1", timestamp: days.time(-2, "10:00:00")),
      eventJSON(
        id: "2", action: "impression", installId: "i2", timestamp: days.time(-2, "11:00:00")),
      eventJSON(id: "3", action: "download", installId: "i1", timestamp: days.time(-2, "12:00:00")),
      eventJSON(id: "4", action: "later", installId: "i2", timestamp: days.time(-1, "09:00:00")),
      eventJSON(id: "5", action: "impression", timestamp: days.time(-1, "10:00:00")),
      eventJSON(
        id: "6", action: "impression", installId: "i3", timestamp: days.time(-1, "11:00:00"),
        test: true),
      eventJSON(
        id: "7", updateId: "u2", action: "ignore", appVersion: "2.0", installId: "i1",
        timestamp: days.time(-1, "12:00:00")),
    ]
    let posted = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON(events))
    try #require(posted.text == #"{"accepted":7,"duplicates":0,"rejected":[]}"#)
    try body(fixture, client)
  }

  private var range: String { "from=\(days.date(-2))&to=\(days.date(-1))" }

  @Test("GET /v1/updates: every update with first and last seen and events by action")
  func updatesJSON() throws {
    try withReports { (fixture, client) throws in
      let response = try client.get(
        fixture.daemon.url("/v1/updates?\(range)"), key: fixture.readKey)

      #expect(response.status == 200)
      #expect(response.header("Content-Type") == "application/json")
      #expect(
        response.text
          == """
          {"updates":[\
          {"updateId":"u1","firstSeen":"\(days.time(-2, "10:00:00"))","lastSeen":"\(days.time(-1, "10:00:00"))",\
          "impression":3,"download":1,"later":1,"ignore":0,"platform":null,"targetVersion":null,"option":null,"rolloutPercent":null},\
          {"updateId":"u2","firstSeen":"\(days.time(-1, "12:00:00"))","lastSeen":"\(days.time(-1, "12:00:00"))",\
          "impression":0,"download":0,"later":0,"ignore":1,"platform":null,"targetVersion":null,"option":null,"rolloutPercent":null}]}
          """)
      let byDefault = try client.get(fixture.daemon.url("/v1/updates"), key: fixture.readKey)
      #expect(byDefault.text == response.text, "the default range is the last 30 days")
    }
  }

  @Test("GET /v1/updates/{id}: events and installs by action, rates over impressions, days")
  func updateJSON() throws {
    try withReports { (fixture, client) throws in
      let response = try client.get(
        fixture.daemon.url("/v1/updates/u1?\(range)"), key: fixture.readKey)

      #expect(response.status == 200)
      #expect(
        response.text
          == """
          {"updateId":"u1","actions":{"impression":{"events":3,"installs":2},\
          "download":{"events":1,"installs":1},"later":{"events":1,"installs":1},\
          "ignore":{"events":0,"installs":0}},"downloadRate":0.5,"laterRate":0.5,"ignoreRate":0,\
          "days":[{"date":"\(days.date(-2))","impression":2,"download":1,"later":0,"ignore":0},\
          {"date":"\(days.date(-1))","impression":1,"download":0,"later":1,"ignore":0}],\
          "platform":null,"targetVersion":null,"option":null,"rolloutPercent":null}
          """)
    }
  }

  @Test("test=include adds test events, test=only counts them alone")
  func testFilter() throws {
    try withReports { (fixture, client) throws in
      let included = try client.get(
        fixture.daemon.url("/v1/updates/u1?\(range)&test=include"), key: fixture.readKey)
      let only = try client.get(
        fixture.daemon.url("/v1/updates?\(range)&test=only"), key: fixture.readKey)
      let excluded = try client.get(
        fixture.daemon.url("/v1/updates?\(range)&test=exclude&format=csv"), key: fixture.readKey)

      #expect(
        included.text
          == """
          {"updateId":"u1","actions":{"impression":{"events":4,"installs":3},\
          "download":{"events":1,"installs":1},"later":{"events":1,"installs":1},\
          "ignore":{"events":0,"installs":0}},"downloadRate":0.333333,"laterRate":0.333333,"ignoreRate":0,\
          "days":[{"date":"\(days.date(-2))","impression":2,"download":1,"later":0,"ignore":0},\
          {"date":"\(days.date(-1))","impression":2,"download":0,"later":1,"ignore":0}],\
          "platform":null,"targetVersion":null,"option":null,"rolloutPercent":null}
          """)
      #expect(
        only.text
          == """
          {"updates":[{"updateId":"u1","firstSeen":"\(days.time(-1, "11:00:00"))",\
          "lastSeen":"\(days.time(-1, "11:00:00"))","impression":1,"download":0,"later":0,"ignore":0,\
          "platform":null,"targetVersion":null,"option":null,"rolloutPercent":null}]}
          """)
      #expect(
        excluded.text.contains(
          "u1,\(days.time(-2, "10:00:00")),\(days.time(-1, "10:00:00")),3,1,1,0,,,"))
    }
  }

  @Test("CSV with format=csv or Accept: text/csv, RFC 4180 with CRLF")
  func csv() throws {
    try withReports { (fixture, client) throws in
      let updates = try client.get(
        fixture.daemon.url("/v1/updates?\(range)&format=csv"), key: fixture.readKey)
      let update = try client.get(
        fixture.daemon.url("/v1/updates/u1?\(range)"), key: fixture.readKey,
        headers: ["Accept": "text/csv"])

      #expect(updates.status == 200)
      #expect(updates.header("Content-Type") == "text/csv; charset=utf-8")
      #expect(
        updates.text
          == "updateId,firstSeen,lastSeen,impression,download,later,ignore,platform,targetVersion,option,"
          + "rolloutPercent\r\n"
          + "u1,\(days.time(-2, "10:00:00")),\(days.time(-1, "10:00:00")),3,1,1,0,,,,\r\n"
          + "u2,\(days.time(-1, "12:00:00")),\(days.time(-1, "12:00:00")),0,0,0,1,,,,\r\n")
      #expect(update.header("Content-Type") == "text/csv; charset=utf-8")
      #expect(
        update.text
          == "date,impression,download,later,ignore\r\n"
          + "\(days.date(-2)),2,1,0,0\r\n"
          + "\(days.date(-1)),1,0,1,0\r\n")
    }
  }

  @Test("an update without events has zero counts, null rates and no days")
  func unknownUpdate() throws {
    try withReports { (fixture, client) throws in
      let response = try client.get(
        fixture.daemon.url("/v1/updates/u3?\(range)"), key: fixture.readKey)

      #expect(response.status == 200)
      #expect(
        response.text
          == """
          {"updateId":"u3","actions":{"impression":{"events":0,"installs":0},\
          "download":{"events":0,"installs":0},"later":{"events":0,"installs":0},\
          "ignore":{"events":0,"installs":0}},"downloadRate":null,"laterRate":null,"ignoreRate":null,\
          "days":[],"platform":null,"targetVersion":null,"option":null,"rolloutPercent":null}
          """)
    }
  }

  @Test("a bad from, to, test or format is 400 bad_request")
  func badParameters() throws {
    try withReports { (fixture, client) throws in
      for query in [
        "from=yesterday", "from=2026-02-30", "to=2026-1-1",
        "from=\(days.date(0))&to=\(days.date(-1))",
        "test=maybe", "format=xml",
      ] {
        let response = try client.get(
          fixture.daemon.url("/v1/updates?\(query)"), key: fixture.readKey)
        #expect(response.status == 400, "\(query)")
        #expect(ErrorBody(response.body)?.code == "bad_request", "\(query)")
      }
    }
  }
}
