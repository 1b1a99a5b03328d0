import Foundation

/// What to do on an OS too old for the latest version.
public enum UnsupportedOSAlert: Int, Sendable, Equatable {
  /// Show nothing.
  case none = 0
  /// Tell the user, who may go on.
  case later = 1
  /// Block the app.
  case freeze = 2
}
