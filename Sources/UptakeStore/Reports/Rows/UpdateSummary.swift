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
