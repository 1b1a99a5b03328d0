import UptakeCore

/// One update's line in `GET /v1/updates`.
public struct UpdateSummary: Sendable, Equatable {
  public let updateId: String
  public let firstSeenMs: Int64
  public let lastSeenMs: Int64
  /// Event counts, indexed by `Action.rawValue`.
  public let events: [Int]
}

/// Events and distinct installs of one action.
public struct ActionCounts: Sendable, Equatable {
  public var events = 0
  public var installs = 0
}

/// One update in detail, for `GET /v1/updates/{updateId}`.
public struct UpdateDetail: Sendable, Equatable {
  public let updateId: String
  /// Indexed by `Action.rawValue`.
  public let actions: [ActionCounts]
  /// Per date with events: the day number and event counts by action.
  public let days: [(day: Int64, events: [Int])]

  /// Installs with `action` over installs with an impression; nil when no
  /// install saw the prompt.
  public func rate(_ action: Action) -> Double? {
    let shown = actions[Action.impression.rawValue].installs
    guard shown > 0 else { return nil }
    return Double(actions[action.rawValue].installs) / Double(shown)
  }

  public static func == (lhs: UpdateDetail, rhs: UpdateDetail) -> Bool {
    lhs.updateId == rhs.updateId && lhs.actions == rhs.actions
      && lhs.days.map(\.day) == rhs.days.map(\.day)
      && lhs.days.map(\.events) == rhs.days.map(\.events)
  }
}

/// One row of a grouped report: the key values in the order asked for (nil
/// where the events had no value, such as a missing platform), then counts.
public struct GroupedRow: Sendable, Equatable {
  public let keys: [String?]
  public let events: Int
  public let installs: Int
}

/// One row of `GET /v1/adoption`: installs seen on a version on a day, and
/// their share of all installs seen that day.
public struct AdoptionRow: Sendable, Equatable {
  public let day: Int64
  public let appVersion: String
  public let installs: Int
  /// `installs` over the day's installs on any version, 0 to 1.
  public let share: Double
}

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
