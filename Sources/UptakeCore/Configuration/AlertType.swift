/// What an app on a too-old OS does. The raw values are the check answer's
/// `alerttype` numbers.
public enum AlertType: Int, Sendable, CaseIterable {
  /// Named `none` in the document; not `.none`, which reads as Optional's.
  case doNothing = 0
  case later = 1
  case freeze = 2

  /// The name in the configuration document.
  public var name: String {
    switch self {
    case .doNothing: "none"
    case .later: "later"
    case .freeze: "freeze"
    }
  }

  public init?(name: String) {
    guard let type = Self.allCases.first(where: { $0.name == name }) else { return nil }
    self = type
  }
}
