import Foundation

/// Lets the batch writer hold new report reads back for a moment, so the
/// write-ahead log can be rewound (see `WALCheckpointSchedule`). Reports
/// enter the gate before they take a pooled connection and leave it after;
/// while the gate is closed new ones wait and those reading finish.
public final class ReadGate: @unchecked Sendable {
  private let condition = NSCondition()
  private var isClosed = false
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

  /// New readers wait from now on; those reading go on.
  func close() {
    condition.lock()
    isClosed = true
    condition.unlock()
  }

  /// Lets waiting and new readers in.
  func open() {
    condition.lock()
    isClosed = false
    condition.broadcast()
    condition.unlock()
  }

  /// Readers inside the gate now.
  var activeReaders: Int {
    condition.lock()
    defer { condition.unlock() }
    return readers
  }
}
