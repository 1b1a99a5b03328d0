import Foundation

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
