import Foundation

/// Lets a writer hold new report reads back for a moment, so its
/// write-ahead log can be rewound (see `WALCheckpointSchedule`). Reports
/// enter the gate before they take a pooled connection and leave it after;
/// while the gate is closed new ones wait and those reading finish. The
/// batch writer and the fold thread each rewind their own file's log, so
/// the gate counts who holds it closed and opens when neither does.
public final class ReadGate: @unchecked Sendable {
  private let condition = NSCondition()
  private var closers = 0
  private var isClosed: Bool { closers > 0 }
  private var readers = 0

  public init() {}

  /// Waits while the gate is closed, then counts the caller as a reader.
  func enter() {
    condition.lock()
    while isClosed { condition.wait() }
    readers += 1
    condition.unlock()
  }

  func leave() {
    condition.lock()
    readers -= 1
    condition.unlock()
  }

  /// New readers wait from now on, until every `close` has its `open`;
  /// those reading go on.
  func close() {
    condition.lock()
    closers += 1
    condition.unlock()
  }

  /// Lets waiting and new readers in, unless another closer still holds it.
  func open() {
    condition.lock()
    closers = max(0, closers - 1)
    if !isClosed { condition.broadcast() }
    condition.unlock()
  }

  /// Readers inside the gate now.
  var activeReaders: Int {
    condition.lock()
    defer { condition.unlock() }
    return readers
  }
}
