import Foundation
import Testing

extension DaemonFixture {
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
}
