import Foundation
import Testing

extension DaemonFixture {
  /// Runs `body` on a new fixture whose daemon holds `events`, posted with
  /// the ingest key, then tears the fixture down.
  public static func with(posted events: [String], _ body: (DaemonFixture) throws -> Void)
    throws
  {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    try fixture.post(events)
    try body(fixture)
  }

  /// Posts `events` with the ingest key and requires every one accepted.
  public func post(_ events: [String]) throws {
    let response = try HTTPClient().postJSON(
      daemon.url("/v1/events"), key: ingestKey, batchJSON(events))
    try #require(
      response.text == #"{"accepted":\#(events.count),"duplicates":0,"rejected":[]}"#,
      "\(response.status) \(response.text)")
  }

  /// GETs a report with the read key.
  public func report(_ pathAndQuery: String, headers: [String: String] = [:]) throws
    -> HTTPResponse
  {
    try HTTPClient().get(daemon.url(pathAndQuery), key: readKey, headers: headers)
  }

  /// The number of events of `action` stored for `updateId`, in
  /// `/v1/updates/{id}`'s default range.
  public func events(_ updateId: String, _ action: String = "impression") throws -> Int {
    struct UpdateReport: Decodable {
      let actions: [String: Counts]
      struct Counts: Decodable { let events: Int }
    }
    let response = try report("/v1/updates/\(updateId)")
    guard response.status == 200 else { return 0 }
    let report = try JSONDecoder().decode(UpdateReport.self, from: response.body)
    return report.actions[action]?.events ?? 0
  }

  /// The update ids with events in `/v1/updates`' default range, in the
  /// server's order.
  public func updateIds() throws -> [String] {
    struct UpdateList: Decodable {
      let updates: [Entry]
      struct Entry: Decodable { let updateId: String }
    }
    let response = try report("/v1/updates")
    try #require(response.status == 200)
    return try JSONDecoder().decode(UpdateList.self, from: response.body).updates.map(\.updateId)
  }
}
