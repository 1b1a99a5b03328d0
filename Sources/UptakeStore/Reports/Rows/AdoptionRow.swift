import UptakeCore

/// One row of `GET /v1/adoption`: installs seen on a version on a day, and
/// their share of all installs seen that day.
public struct AdoptionRow: Sendable, Equatable {
  public let day: Int64
  public let appVersion: String
  public let installs: Int
  /// `installs` over the day's installs on any version, 0 to 1.
  public let share: Double
}
