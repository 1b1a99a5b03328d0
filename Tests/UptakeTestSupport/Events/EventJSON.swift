import Foundation

/// One event of an ingest body, as JSON text; nil fields are left out.
public func eventJSON(
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
public func batchJSON(_ events: [String]) -> String {
  "{\"events\":[" + events.joined(separator: ",") + "]}"
}
