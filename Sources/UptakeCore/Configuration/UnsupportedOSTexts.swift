/// The texts of the non-supported-OS alert in one language.
public struct UnsupportedOSTexts: Sendable, Equatable {
  public let title: String
  public let description: String
  public let `continue`: String

  /// The texts of an alert that shows nothing.
  public static let empty = UnsupportedOSTexts(title: "", description: "", continue: "")
}
