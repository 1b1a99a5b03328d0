@testable import UptakeCore

/// The members of a valid iOS entry, as raw JSON, in the contract's order;
/// tests replace or drop members to build the document they need.
let iosEntryMembers: [(String, String)] = [
  ("updateId", #""782000001589015""#),
  ("platform", #""ios""#),
  ("latestVersion", #""2.1.0""#),
  ("storeUrl", #""https://apps.apple.com/app/id1234567890""#),
  ("option", #""flexible""#),
  ("requiredVersion", #""2.0.0""#),
  ("reminderDays", "5"),
  ("rolloutPercent", "100"),
  ("minimumOsVersion", #""16.0""#),
  (
    "unsupportedOs",
    #"{"alertType": "later", "texts": {"en": {"title": "iOS too old", "description": "Update iOS first", "continue": "OK"}}}"#
  ),
  ("eol", "false"),
  ("eolMessage", "null"),
  (
    "texts",
    #"{"en": {"title": "New update is available!", "description": "Faster", "updateNow": "Update Now", "remindMeLater": "Remind Me Later", "ignore": "Ignore"}, "de": {"title": "Neues Update", "description": "Schneller", "updateNow": "Jetzt", "remindMeLater": "Später", "ignore": "Ignorieren"}}"#
  ),
]

/// An entry's JSON: `members` with `replacing` swapped in (or appended when
/// new) and the names in `dropping` left out.
func entryJSON(
  _ members: [(String, String)] = iosEntryMembers, replacing: [String: String] = [:],
  dropping: Set<String> = []
) -> String {
  var result = members.filter { !dropping.contains($0.0) }.map { (name, value) in
    (name, replacing[name] ?? value)
  }
  for (name, value) in replacing.sorted(by: { $0.key < $1.key })
  where !members.contains(where: { $0.0 == name }) {
    result.append((name, value))
  }
  return "{" + result.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
}

/// A document holding `entries`.
func documentJSON(_ entries: [String]) -> String {
  #"{"updates": ["# + entries.joined(separator: ", ") + "]}"
}

/// Decodes a document that a test expects to be valid.
func configuration(_ entries: [String]) -> UpdateConfiguration? {
  try? UpdateConfigurationDecoder.decode(Array(documentJSON(entries).utf8)).get()
}

/// The problems of a document that a test expects to be refused.
func problems(_ text: String) -> [String] {
  switch UpdateConfigurationDecoder.decode(Array(text.utf8)) {
  case .success: return []
  case .failure(let error): return error.messages
  }
}
