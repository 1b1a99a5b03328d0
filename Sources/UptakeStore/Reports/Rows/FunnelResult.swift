import UptakeCore

/// `GET /v1/updates/{updateId}/funnel`: installs from the prompt to a real
/// upgrade, over events in the range.
public struct FunnelResult: Sendable, Equatable {
  /// Installs with an impression of the update in the range.
  public let impressions: Int
  /// Of those, installs with a download of it at or after their first
  /// impression in the range.
  public let downloads: Int
  /// Of those, installs seen after that download on a higher version (at
  /// least the target version, when one is configured).
  public let upgraded: Int
  /// Median hours from first impression to the first such event; nil when no
  /// install upgraded.
  public let medianHoursToUpgrade: Double?
}
