/// What became of the events recorded since the client was created, and how
/// many still wait.
public struct UptakeClientStats: Sendable, Equatable {
  /// Events in the on-disk queue.
  public var pending = 0
  /// Events the server stored.
  public var delivered = 0
  /// Events the server already had (a retry of a batch whose answer was lost).
  public var duplicates = 0
  /// Events rejected one by one (in a `200`'s `rejected`, or by `record` for
  /// an `updateId` the contract does not allow): they would never succeed.
  public var rejected = 0
  /// Events of batches answered `400`, `401` or `413`, which are not retried.
  public var discarded = 0
  /// Oldest events dropped because the queue was full.
  public var droppedOldest = 0
  /// Events `record` could not write to disk.
  public var writeFailures = 0
  /// Torn or unreadable lines skipped when the queue was read at start.
  public var unreadableLines = 0

  /// All counts zero.
  public init() {}
}
