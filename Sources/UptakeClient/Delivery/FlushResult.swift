/// What one `flush()` did.
public struct FlushResult: Sendable, Equatable {
  /// Requests sent, retries included.
  public var requests = 0
  /// Events that left the queue: stored, duplicates, rejected or discarded.
  public var settled = 0
  /// Events still queued when the flush ended.
  public var remaining = 0

  /// All counts zero.
  public init() {}
}
