/// The texts of the update prompt in one language. Buttons an option does
/// not show may be empty.
public struct PromptTexts: Sendable, Equatable {
  public let title: String
  public let description: String
  public let updateNow: String
  public let remindMeLater: String
  public let ignore: String
}
