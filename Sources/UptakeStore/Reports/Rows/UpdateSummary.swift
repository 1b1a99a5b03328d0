import UptakeCore

/// One update's line in `GET /v1/updates`.
public struct UpdateSummary: Sendable, Equatable {
  public let updateId: String
  public let firstSeenMs: Int64
  public let lastSeenMs: Int64
  /// Event counts, indexed by `Action.rawValue`.
  public let events: [Int]

  public init(updateId: String, firstSeenMs: Int64, lastSeenMs: Int64, events: [Int]) {
    self.updateId = updateId
    self.firstSeenMs = firstSeenMs
    self.lastSeenMs = lastSeenMs
    self.events = events
  }
}

extension UpdateSummary {
  /// Each update's events by action and first and last times, as the
  /// reports gather them, in `/v1/updates`' order: by update id, in byte
  /// order.
  public static func sorted(_ byUpdate: [String: (events: [Int], first: Int64, last: Int64)])
    -> [UpdateSummary]
  {
    byUpdate.sorted { $0.key.precedesInByteOrder($1.key) }.map {
      UpdateSummary(
        updateId: $0.key, firstSeenMs: $0.value.first, lastSeenMs: $0.value.last,
        events: $0.value.events)
    }
  }
}
