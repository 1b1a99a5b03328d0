/// An app's update configuration: the JSON document the product team keeps
/// under version control and loads with `uptake updates put`. Only
/// `UpdateConfigurationDecoder` makes one, so every value here has passed
/// validation as a whole.
public struct UpdateConfiguration: Sendable, Equatable {
  /// The entries in document order; at most one per platform, and each
  /// `updateId` names one entry.
  public let entries: [UpdateEntry]
  /// The document exactly as it was given, which is what is stored and what
  /// `uptake updates get` prints.
  public let documentText: String

  init(entries: [UpdateEntry], documentText: String) {
    self.entries = entries
    self.documentText = documentText
  }

  /// The entry for `platform`, if one is configured.
  public func entry(for platform: Platform) -> UpdateEntry? {
    entries.first { $0.platform == platform }
  }

  /// The entry named `updateId`, if one is configured.
  public func entry(updateId: String) -> UpdateEntry? {
    entries.first { $0.updateId == updateId }
  }
}

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
}

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

/// The texts of the update prompt in one language. Buttons an option does
/// not show may be empty.
public struct PromptTexts: Sendable, Equatable {
  public let title: String
  public let description: String
  public let updateNow: String
  public let remindMeLater: String
  public let ignore: String
}

/// The non-supported-OS answer: its alert type and texts.
public struct UnsupportedOSPrompt: Sendable, Equatable {
  public let alertType: AlertType
  public let texts: LocalizedTexts<UnsupportedOSTexts>

  /// What an entry without `unsupportedOs` answers: do nothing.
  static let silent = UnsupportedOSPrompt(alertType: .doNothing, texts: LocalizedTexts([]))
}

/// The texts of the non-supported-OS alert in one language.
public struct UnsupportedOSTexts: Sendable, Equatable {
  public let title: String
  public let description: String
  public let `continue`: String

  /// The texts of an alert that shows nothing.
  public static let empty = UnsupportedOSTexts(title: "", description: "", continue: "")
}
