/// An ingest request body, validated event by event.
public struct DecodedBatch: Sendable {
  /// Events that passed validation, in request order.
  public var events: [Event]
  /// Zero-based request index of each accepted event (same count as `events`).
  public var eventIndexes: [Int]
  /// Events that broke a rule, sorted by index.
  public var rejected: [Rejection]
  /// Number of elements in the request's `events` array.
  public var total: Int

  /// A batch from its parts.
  public init(events: [Event], eventIndexes: [Int], rejected: [Rejection], total: Int) {
    self.events = events
    self.eventIndexes = eventIndexes
    self.rejected = rejected
    self.total = total
  }
}
