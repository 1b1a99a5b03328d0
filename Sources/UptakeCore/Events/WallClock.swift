import Foundation

/// The current time in the unit events and the store use.
public enum WallClock {
  /// Milliseconds since the Unix epoch, UTC.
  public static func nowMs() -> Int64 {
    Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
  }
}
