import Foundation
import UptakeCore

/// One event of an ingest body, as JSON text; nil fields are left out.
func eventJSON(
  id: String? = nil, updateId: String = "u1", action: String = "impression",
  appVersion: String = "1.0.0", installId: String? = nil, timestamp: String? = nil,
  test: Bool? = nil
) -> String {
  var members = [
    "\"updateId\":\"\(updateId)\"", "\"action\":\"\(action)\"", "\"appVersion\":\"\(appVersion)\"",
  ]
  if let id { members.insert("\"id\":\"\(id)\"", at: 0) }
  if let installId { members.append("\"installId\":\"\(installId)\"") }
  if let timestamp { members.append("\"timestamp\":\"\(timestamp)\"") }
  if let test { members.append("\"test\":\(test)") }
  return "{" + members.joined(separator: ",") + "}"
}

/// An ingest body holding `events`.
func batchJSON(_ events: [String]) -> String {
  "{\"events\":[" + events.joined(separator: ",") + "]}"
}

/// UTC calendar days relative to the moment a test runs.
struct Days {
  let today: Int64

  init() {
    today = Timestamp.dayNumber(ms: Int64(Date().timeIntervalSince1970 * 1000))
  }

  /// `YYYY-MM-DD` of the day `offset` days from today (-1: yesterday).
  func date(_ offset: Int64) -> String {
    Timestamp.formatDate(dayNumber: today + offset)
  }

  /// An RFC 3339 time on the day `offset` days from today.
  func time(_ offset: Int64, _ clock: String) -> String {
    "\(date(offset))T\(clock)Z"
  }
}
