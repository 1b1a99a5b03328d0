import Foundation

/// How insistent a prompt is; the raw values are the check answer's `option`.
public enum UpdateOption: Int, Sendable, Equatable {
  /// Update, Later and Ignore.
  case flexible = 1
  /// Update and Later.
  case immediate = 2
  /// Update only.
  case force = 3
}
