import Foundation

/// What the app should show, as `/v1/check` decided it.
public enum UpdateDecision: Sendable, Equatable {
  /// Nothing to show; also the answer to any error or timeout (fail open).
  case noUpdate
  /// A newer version to prompt for.
  case update(UpdatePrompt)
  /// The device's OS cannot run the latest version.
  case osTooOld(UnsupportedOSNotice)
  /// This app has reached its end of life.
  case endOfLife(EndOfLifeNotice)
}

/// How insistent a prompt is; the raw values are the check answer's `option`.
public enum UpdateOption: Int, Sendable, Equatable {
  /// Update, Later and Ignore.
  case flexible = 1
  /// Update and Later.
  case immediate = 2
  /// Update only.
  case force = 3
}

/// The prompt's texts in the user's language.
public struct PromptTexts: Sendable, Equatable {
  public var title: String
  public var description: String
  public var updateNow: String
  public var remindMeLater: String
  public var ignore: String

  /// Texts as the check answer's `popupinfo` holds them.
  public init(
    title: String, description: String, updateNow: String, remindMeLater: String, ignore: String
  ) {
    self.title = title
    self.description = description
    self.updateNow = updateNow
    self.remindMeLater = remindMeLater
    self.ignore = ignore
  }
}

/// An update prompt; record what the user does with it under `updateId`.
public struct UpdatePrompt: Sendable, Equatable {
  /// The id to record the user's actions under.
  public var updateId: String
  public var latestVersion: String
  public var option: UpdateOption
  public var texts: PromptTexts
  /// Days to wait before showing the prompt again after "Remind Me Later".
  public var reminderDays: Int
  public var storeURL: URL?
  /// True when this install must update (below the required version, or the
  /// option is `force`): show no way out.
  public var isForced: Bool

  /// A prompt as the check answer describes it.
  public init(
    updateId: String, latestVersion: String, option: UpdateOption, texts: PromptTexts,
    reminderDays: Int, storeURL: URL?, isForced: Bool
  ) {
    self.updateId = updateId
    self.latestVersion = latestVersion
    self.option = option
    self.texts = texts
    self.reminderDays = reminderDays
    self.storeURL = storeURL
    self.isForced = isForced
  }
}

/// What to do on an OS too old for the latest version.
public enum UnsupportedOSAlert: Int, Sendable, Equatable {
  /// Show nothing.
  case none = 0
  /// Tell the user, who may go on.
  case later = 1
  /// Block the app.
  case freeze = 2
}

/// The notice for an install whose OS cannot take the latest version.
public struct UnsupportedOSNotice: Sendable, Equatable {
  /// The id to record the user's actions under.
  public var updateId: String
  public var title: String
  public var description: String
  /// The label of the button that dismisses the notice.
  public var continueLabel: String
  public var alertType: UnsupportedOSAlert

  /// A notice as the check answer describes it.
  public init(
    updateId: String, title: String, description: String, continueLabel: String,
    alertType: UnsupportedOSAlert
  ) {
    self.updateId = updateId
    self.title = title
    self.description = description
    self.continueLabel = continueLabel
    self.alertType = alertType
  }
}

/// The notice that the app is no longer supported.
public struct EndOfLifeNotice: Sendable, Equatable {
  /// The id to record the user's actions under.
  public var updateId: String
  /// What to tell the user; empty when the configuration has none.
  public var message: String

  /// A notice as the check answer describes it.
  public init(updateId: String, message: String) {
    self.updateId = updateId
    self.message = message
  }
}
