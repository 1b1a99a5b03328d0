/// How insistent the prompt is. The raw values are the check answer's
/// `option` numbers.
public enum UpdateOption: Int, Sendable, CaseIterable {
  /// Update, Later and Ignore.
  case flexible = 1
  /// Update and Later.
  case immediate = 2
  /// Update only.
  case force = 3

  /// The name in the configuration document and in reports.
  public var name: String {
    switch self {
    case .flexible: "flexible"
    case .immediate: "immediate"
    case .force: "force"
    }
  }

  public init?(name: String) {
    guard let option = Self.allCases.first(where: { $0.name == name }) else { return nil }
    self = option
  }
}
