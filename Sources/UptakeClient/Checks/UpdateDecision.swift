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
