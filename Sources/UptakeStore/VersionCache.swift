import UptakeCore

/// Parses version texts once each: a report or a fold compares the same
/// handful of versions across thousands of rows.
struct VersionCache {
  private var parsed: [String: Version?] = [:]

  mutating func version(_ text: String) -> Version? {
    if let known = parsed[text] { return known }
    let version = Version(text)
    parsed[text] = version
    return version
  }
}
