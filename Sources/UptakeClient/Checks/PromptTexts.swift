import Foundation

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
