import Foundation

/// Bounds and timings of the queue and its delivery.
public struct UptakeLimits: Sendable {
  /// The most events kept on disk; past it the oldest are dropped (counted in
  /// `UptakeClient.Stats.droppedOldest`). 10 000 events are about 3 MB, and
  /// far more prompts than an app shows between two launches with a network.
  public var maxQueuedEvents: Int
  /// Events per request, at most the contract's 1000 per request.
  public var batchSize: Int
  /// The longest a check may take before it counts as "no update": an app
  /// launch must not wait on Uptake.
  public var checkTimeout: TimeInterval
  /// The longest one ingest request may take.
  public var requestTimeout: TimeInterval
  /// Tries per batch within one flush before the flush gives up and leaves
  /// the events queued for the next one.
  public var attemptsPerFlush: Int
  /// The first retry's delay; each further retry doubles it, with jitter.
  public var initialBackoff: TimeInterval
  /// The longest delay between two tries.
  public var maxBackoff: TimeInterval
  /// A flush waits for a `Retry-After` up to this long; a longer one ends the
  /// flush, and no flush sends again before it has passed.
  public var maxRetryAfterWait: TimeInterval
  /// How long after a `record` the client flushes by itself, gathering the
  /// events of a moment into one request; nil: only `flush()` sends.
  public var autoFlushDelay: TimeInterval?

  /// The defaults suit an app; out-of-range sizes are brought into range.
  public init(
    maxQueuedEvents: Int = 10_000, batchSize: Int = 500, checkTimeout: TimeInterval = 5,
    requestTimeout: TimeInterval = 30, attemptsPerFlush: Int = 4, initialBackoff: TimeInterval = 1,
    maxBackoff: TimeInterval = 60, maxRetryAfterWait: TimeInterval = 30,
    autoFlushDelay: TimeInterval? = 2
  ) {
    self.maxQueuedEvents = max(1, maxQueuedEvents)
    self.batchSize = min(max(1, batchSize), UptakeLimits.contractBatchMaximum)
    self.checkTimeout = checkTimeout
    self.requestTimeout = requestTimeout
    self.attemptsPerFlush = max(1, attemptsPerFlush)
    self.initialBackoff = initialBackoff
    self.maxBackoff = maxBackoff
    self.maxRetryAfterWait = maxRetryAfterWait
    self.autoFlushDelay = autoFlushDelay
  }

  /// The contract's most events in one ingest request.
  public static let contractBatchMaximum = 1000
}
