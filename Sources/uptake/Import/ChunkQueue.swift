import Foundation
import UptakeCore

/// The hand-over between the reading and the storing thread. It holds a few
/// chunks at most, so a reader faster than the database waits instead of
/// filling memory.
final class ChunkQueue: @unchecked Sendable {
  private let capacity: Int
  private let condition = NSCondition()
  // Guarded by `condition`:
  private var chunks: [ImportChunk] = []
  private var finished = false
  private var cancelled = false

  init(capacity: Int) {
    self.capacity = capacity
  }

  /// Adds a chunk, waiting for room; false when the consumer gave up.
  func put(_ chunk: ImportChunk) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while chunks.count >= capacity && !cancelled { condition.wait() }
    guard !cancelled else { return false }
    chunks.append(chunk)
    condition.broadcast()
    return true
  }

  /// The next chunk, waiting for one; nil once the reader has finished and
  /// every chunk was taken.
  func take() -> ImportChunk? {
    condition.lock()
    defer { condition.unlock() }
    while chunks.isEmpty && !finished { condition.wait() }
    guard !chunks.isEmpty else { return nil }
    condition.broadcast()
    return chunks.removeFirst()
  }

  /// Called by the reader when it is done.
  func finish() {
    condition.lock()
    finished = true
    condition.broadcast()
    condition.unlock()
  }

  /// Called by the consumer when it stops early: the reader stops too.
  func cancel() {
    condition.lock()
    cancelled = true
    chunks.removeAll()
    condition.broadcast()
    condition.unlock()
  }
}
