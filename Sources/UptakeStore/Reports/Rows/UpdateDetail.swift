import UptakeCore

/// One update in detail, for `GET /v1/updates/{updateId}`.
public struct UpdateDetail: Sendable, Equatable {
  public let updateId: String
  /// Indexed by `Action.rawValue`.
  public let actions: [ActionCounts]
  /// Per date with events: the day number and event counts by action.
  public let days: [(day: Int64, events: [Int])]

  public init(updateId: String, actions: [ActionCounts], days: [(day: Int64, events: [Int])]) {
    self.updateId = updateId
    self.actions = actions
    self.days = days
  }

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
