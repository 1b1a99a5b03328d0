/// The limits an ingest request body must keep.
public struct IngestLimits: Sendable {
  /// The contract's cap on events in one request.
  public var maxEventsPerBatch = 1000
  /// The contract's cap on one event's JSON text; a larger event fails the
  /// whole request with 413.
  public var maxEventBytes = 32 * 1024
  /// JSON nesting depth, counting the body's object and the events array; it
  /// bounds the parser's recursion. Real events need 3 or 4 levels.
  public var maxDepth = 32

  /// The contract's limits.
  public init() {}
}
