import Foundation
import Testing
import UptakeTestSupport

/// Who may do what: the ingest key ships in every copy of the app, so it
/// must read nothing; the read key must write nothing; and no key of one app
/// may reach another app's data.
@Suite("uptaked access by key", .timeLimit(.minutes(3)))
struct AccessEndToEndTests {
  static let reports = [
    "/v1/updates", "/v1/updates/u1", "/v1/updates/u1/funnel", "/v1/report",
    "/v1/report?groupBy=date,appVersion&format=csv", "/v1/adoption",
  ]

  @Test("an ingest key reads nothing: 401 on every report, as Bearer or X-Uptake-Key")
  func ingestKeyReadsNothing() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    _ = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey,
      batchJSON([eventJSON(updateId: "u1", installId: "i1")]))

    for path in Self.reports {
      let bearer = try client.get(fixture.daemon.url(path), key: fixture.ingestKey)
      let header = try client.get(
        fixture.daemon.url(path), headers: ["X-Uptake-Key": fixture.ingestKey])
      for response in [bearer, header] {
        #expect(response.status == 401, "\(path)")
        #expect(
          response.text == #"{"error":{"code":"unauthorized","message":"missing or unknown key"}}"#,
          "\(path)")
      }
      #expect(try client.get(fixture.daemon.url(path), key: fixture.readKey).status == 200)
    }
  }

  @Test("a read key ingests nothing: 401, and nothing is stored")
  func readKeyIngestsNothing() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()

    let bearer = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.readKey, batchJSON([eventJSON()]))
    let header = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: nil, batchJSON([eventJSON()]),
      headers: ["X-Uptake-Key": fixture.readKey])

    #expect(bearer.status == 401)
    #expect(header.status == 401)
    let stored = try client.get(
      fixture.daemon.url("/v1/updates?test=include"), key: fixture.readKey)
    #expect(stored.text == #"{"updates":[]}"#)
  }

  @Test("two apps: each key reaches its own app's data only")
  func appsAreIsolated() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let added = try uptake(["apps", "add", "other", "--json", "--db", fixture.databasePath])
    try #require(added.status == 0, "\(added.standardError)")
    struct Keys: Decodable {
      let ingestKey: String
      let readKey: String
    }
    let other = try JSONDecoder().decode(Keys.self, from: Data(added.standardOutput.utf8))

    let mine = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey,
      batchJSON([eventJSON(id: "same-id", updateId: "mine", installId: "i1")]))
    let theirs = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: other.ingestKey,
      batchJSON([eventJSON(id: "same-id", updateId: "theirs", installId: "i1")]))

    #expect(mine.text == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)
    #expect(
      theirs.text == #"{"accepted":1,"duplicates":0,"rejected":[]}"#,
      "the same event id in another app is not a duplicate")
    let myUpdates = try client.get(fixture.daemon.url("/v1/updates"), key: fixture.readKey).text
    let theirUpdates = try client.get(fixture.daemon.url("/v1/updates"), key: other.readKey).text
    #expect(myUpdates.contains(#""updateId":"mine""#) && !myUpdates.contains("theirs"))
    #expect(theirUpdates.contains(#""updateId":"theirs""#) && !theirUpdates.contains("mine"))
    let crossed = try client.get(fixture.daemon.url("/v1/updates/mine"), key: other.readKey)
    #expect(!crossed.text.contains(#""events":1"#), "another app's update reads as empty")
    let report = try client.get(
      fixture.daemon.url("/v1/report?groupBy=updateId"), key: other.readKey)
    #expect(report.text.contains("theirs") && !report.text.contains("mine"))
  }
}
