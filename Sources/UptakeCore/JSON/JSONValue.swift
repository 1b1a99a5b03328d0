/// A parsed JSON document. Objects keep their members in document order,
/// duplicates included, so that nothing the client sent is lost before the
/// caller decides what a duplicate means.
public enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  case number(JSONNumber)
  case string(String)
  case array([JSONValue])
  case object([(String, JSONValue)])

  /// Structural equality; objects compare member by member in order, because
  /// the members are an ordered list (tuples cannot synthesise `Equatable`).
  public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): return true
    case (.bool(let a), .bool(let b)): return a == b
    case (.number(let a), .number(let b)): return a == b
    case (.string(let a), .string(let b)): return a == b
    case (.array(let a), .array(let b)): return a == b
    case (.object(let a), .object(let b)):
      guard a.count == b.count else { return false }
      for (x, y) in zip(a, b) where x.0 != y.0 || x.1 != y.1 { return false }
      return true
    default: return false
    }
  }

  /// The member named `key` of an object (the last one when the key repeats,
  /// as most JSON readers do), or nil for a missing key or a non-object.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    for member in members.reversed() where member.0 == key { return member.1 }
    return nil
  }
}
