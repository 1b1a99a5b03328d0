import Foundation

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
