/// The non-supported-OS answer: its alert type and texts.
public struct UnsupportedOSPrompt: Sendable, Equatable {
  public let alertType: AlertType
  public let texts: LocalizedTexts<UnsupportedOSTexts>

  /// What an entry without `unsupportedOs` answers: do nothing.
  static let silent = UnsupportedOSPrompt(alertType: .doNothing, texts: LocalizedTexts([]))
}
