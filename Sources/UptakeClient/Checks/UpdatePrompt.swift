import Foundation

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
