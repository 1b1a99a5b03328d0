/// One platform's update prompt.
public struct UpdateEntry: Sendable, Equatable {
  public let updateId: String
  public let platform: Platform
  public let latestVersion: Version
  public let storeUrl: String
  public let option: UpdateOption
  /// Installs below it are always forced; nil when no version is required.
  public let requiredVersion: Version?
  /// Days the app waits before showing the prompt again after "later".
  public let reminderDays: Int
  /// The share of installs the (unforced) prompt reaches, 0 to 100.
  public let rolloutPercent: Double
  /// Installs on an older OS get the non-supported-OS answer.
  public let minimumOsVersion: Version?
  public let unsupportedOs: UnsupportedOSPrompt
  /// End of life: every install of the platform gets `eolMessage`.
  public let eol: Bool
  public let eolMessage: String?
  /// Prompt texts by lower-case language, in document order.
  public let texts: LocalizedTexts<PromptTexts>
  /// The App Store app whose per-country lookups gate the prompt; nil for
  /// none (every entry not on an Apple platform, or by choice).
  public let appStore: AppStoreWatch?
}
