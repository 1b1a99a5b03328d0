/// What the user did with a prompt, as the contract names it.
public enum Action: String, Sendable, CaseIterable {
  /// The prompt was shown.
  case impression
  /// The user chose Update.
  case download
  /// The user chose Remind Me Later.
  case later
  /// The user chose to skip this version.
  case ignore
}
