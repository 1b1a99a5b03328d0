/// An app or OS version, ordered the way people read versions rather than as
/// text: `2.10.0` > `2.9.1`, `10.0` > `9.0`, `2022.08.25` > `2022.8.3`.
///
/// Ordering rules:
/// - The core is the leading run of dot-separated digit groups. Groups
///   compare as numbers of any length (no overflow: leading zeros are
///   dropped, then the longer run is larger, then digit by digit), and
///   missing trailing groups count as zero, so `08` == `8` and
///   `2.0` == `2.0.0`.
/// - A build suffix, `+45` or ` (45)`, is ignored: `2.1 (45)` == `2.1+7` ==
///   `2.1`.
/// - Any other suffix is a pre-release, written `2.1.0-beta.1` or directly
///   after the core (`2.1b3`, `1.0 rc1`; one separating `-`, `.`, `_` or
///   space is dropped). A pre-release sorts before the same core without
///   one, and pre-releases compare as in Semantic Versioning: identifiers
///   separated by dots, numeric ones numerically, numeric before
///   alphanumeric, alphanumeric ones by their UTF-8 bytes, and a shorter list
///   before a longer one that it prefixes (`-alpha` < `-alpha.1`).
///
/// Two versions are equal (and hash alike) exactly when neither sorts before
/// the other; `text` keeps the spelling that was given.
public struct Version: Sendable, Comparable, Hashable, CustomStringConvertible {
  /// The version as written.
  public let text: String

  /// Core groups without leading zeros ("0" becomes empty) and without
  /// trailing zero groups, so that equal versions have equal arrays.
  private let core: [[UInt8]]
  private let prerelease: [Identifier]

  private enum Identifier: Hashable {
    /// Digits without leading zeros.
    case numeric([UInt8])
    case alphanumeric([UInt8])
  }

  /// Reads a version; nil when `text` does not start with a digit.
  public init?(_ text: String) {
    let bytes = Array(text.utf8)
    guard let first = bytes.first, Version.isDigit(first) else { return nil }
    self.text = text

    var core: [[UInt8]] = []
    var i = 0
    while true {
      let start = i
      while i < bytes.count, Version.isDigit(bytes[i]) { i += 1 }
      core.append(Version.trimmingLeadingZeros(bytes[start..<i]))
      guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "."), Version.isDigit(bytes[i + 1])
      else { break }
      i += 1
    }
    while core.last?.isEmpty == true { core.removeLast() }
    self.core = core
    self.prerelease = Version.prereleaseIdentifiers(bytes[i...])
  }

  /// The version as written.
  public var description: String { text }

  /// Version order, as described on the type.
  public static func < (lhs: Version, rhs: Version) -> Bool {
    compare(lhs, rhs) < 0
  }

  /// Equal in version order, which may differ from equal text: `2.0` == `2.0.0`.
  public static func == (lhs: Version, rhs: Version) -> Bool {
    lhs.core == rhs.core && lhs.prerelease == rhs.prerelease
  }

  /// Hashes the normalised form, so versions equal in order hash alike.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(core)
    hasher.combine(prerelease)
  }

  /// Negative, zero or positive as `a` sorts before, with or after `b`.
  private static func compare(_ a: Version, _ b: Version) -> Int {
    for k in 0..<max(a.core.count, b.core.count) {
      let x = k < a.core.count ? a.core[k] : []
      let y = k < b.core.count ? b.core[k] : []
      let order = compareDigits(x, y)
      if order != 0 { return order }
    }
    // No pre-release sorts after any pre-release of the same core.
    switch (a.prerelease.isEmpty, b.prerelease.isEmpty) {
    case (true, true): return 0
    case (true, false): return 1
    case (false, true): return -1
    case (false, false): break
    }
    for (x, y) in zip(a.prerelease, b.prerelease) {
      let order: Int
      switch (x, y) {
      case (.numeric(let p), .numeric(let q)): order = compareDigits(p, q)
      case (.numeric, .alphanumeric): order = -1
      case (.alphanumeric, .numeric): order = 1
      case (.alphanumeric(let p), .alphanumeric(let q)):
        order = p == q ? 0 : (p.lexicographicallyPrecedes(q) ? -1 : 1)
      }
      if order != 0 { return order }
    }
    return a.prerelease.count - b.prerelease.count
  }

  /// Compares digit runs that have no leading zeros.
  private static func compareDigits(_ a: [UInt8], _ b: [UInt8]) -> Int {
    if a.count != b.count { return a.count < b.count ? -1 : 1 }
    if a == b { return 0 }
    return a.lexicographicallyPrecedes(b) ? -1 : 1
  }

  private static func prereleaseIdentifiers(_ suffix: ArraySlice<UInt8>) -> [Identifier] {
    var rest = suffix
    // The build part never affects the order; it starts at `+` or ` (`.
    if let plus = rest.firstIndex(of: UInt8(ascii: "+")) { rest = rest[..<plus] }
    if let paren = rest.indices.first(where: {
      rest[$0] == UInt8(ascii: " ") && $0 + 1 < rest.endIndex && rest[$0 + 1] == UInt8(ascii: "(")
    }) {
      rest = rest[..<paren]
    }
    if let first = rest.first,
      first == UInt8(ascii: "-") || first == UInt8(ascii: ".") || first == UInt8(ascii: "_")
        || first == UInt8(ascii: " ")
    {
      rest = rest.dropFirst()
    }
    if rest.isEmpty { return [] }
    return rest.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map {
      $0.allSatisfy(isDigit) && !$0.isEmpty
        ? .numeric(trimmingLeadingZeros($0)) : .alphanumeric(Array($0))
    }
  }

  private static func trimmingLeadingZeros(_ digits: ArraySlice<UInt8>) -> [UInt8] {
    Array(digits.drop(while: { $0 == UInt8(ascii: "0") }))
  }

  private static func isDigit(_ byte: UInt8) -> Bool {
    byte &- UInt8(ascii: "0") < 10
  }
}
