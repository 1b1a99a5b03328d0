/// What the user did with an update prompt. The raw values are what the
/// store keeps, so they must never be renumbered.
public enum Action: Int, CaseIterable, Sendable, Comparable {
  case impression = 0
  case download = 1
  case later = 2
  case ignore = 3

  /// The name used on the wire, in reports and in CSV.
  public var name: String {
    switch self {
    case .impression: "impression"
    case .download: "download"
    case .later: "later"
    case .ignore: "ignore"
    }
  }

  public init?(name: String) {
    guard let action = Action.allCases.first(where: { $0.name == name }) else { return nil }
    self = action
  }

  public static func < (lhs: Action, rhs: Action) -> Bool { lhs.rawValue < rhs.rawValue }
}
