import Foundation

/// One event of an ingest body or an import line, as JSON text, its
/// members in the contract's order; nil fields are left out.
public func eventJSON(
  id: String? = nil, updateId: String = "u1", action: String = "impression",
  appVersion: String = "1.0.0", installId: String? = nil, timestamp: String? = nil,
  platform: String? = nil, osVersion: String? = nil, test: Bool? = nil
) -> String {
  var members: [String] = []
  if let id { members.append("\"id\":\"\(id)\"") }
  members += [
    "\"updateId\":\"\(updateId)\"", "\"action\":\"\(action)\"", "\"appVersion\":\"\(appVersion)\"",
  ]
  if let installId { members.append("\"installId\":\"\(installId)\"") }
  if let timestamp { members.append("\"timestamp\":\"\(timestamp)\"") }
  if let platform { members.append("\"platform\":\"\(platform)\"") }
  if let osVersion { members.append("\"osVersion\":\"\(osVersion)\"") }
  if let test { members.append("\"test\":\(test)") }
  return "{" + members.joined(separator: ",") + "}"
}

/// An ingest body holding `events`.
public func batchJSON(_ events: [String]) -> String {
  "{\"events\":[" + events.joined(separator: ",") + "]}"
}
