/// Sort orders for report keys that hold versions.
public enum VersionOrder {
  /// Total order for sorting report keys: version order first, then plain text order as a
  /// tie-breaker so sorting is deterministic; strings that are not versions sort after all
  /// versions, in text order. Text order is by UTF-8 bytes, like SQLite's BINARY collation.
  public static func areInIncreasingOrder(_ a: String, _ b: String) -> Bool {
    switch (Version(a), Version(b)) {
    case (let x?, let y?):
      if x < y { return true }
      if y < x { return false }
    case (.some, nil): return true
    case (nil, .some): return false
    case (nil, nil): break
    }
    return a.precedesInByteOrder(b)
  }
}
