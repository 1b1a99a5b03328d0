import Foundation

/// A fold read and sorted, waiting to be written (`RollupFolder`).
public struct PreparedFold: Sendable {
  /// The folded seq it was read after: it is stale once that moved.
  let afterSeq: Int64
  var batch: FoldBatch
  var dimensions: DimensionFold.Prepared

  /// Events it folds.
  public var count: Int { batch.count }
}

/// Prepares the next fold on its own thread and connection while the
/// caller goes on storing events. Reading and sorting a bulk import's
/// 4M-event fold takes seconds, a fifth of the fold, on the one thread
/// that can write; a second core can do it beside the inserts.
public final class FoldPreparer: @unchecked Sendable {
  private let database: Database
  private let condition = NSCondition()
  // Guarded by `condition`:
  private var running = false
  private var finished: Result<PreparedFold?, StoreError>?

  /// Opens its connection to the database at `path`. It reads through its
  /// own page cache, not a memory map: the writer's map and a second one
  /// count the same pages twice in resident memory (an import peaked at
  /// 2.2 GB instead of 1.7, no faster).
  public init(path: String) throws(StoreError) {
    database = try Database(path: path, create: false)
  }

  /// True from `start` until its fold is taken.
  public var isBusy: Bool {
    condition.lock()
    defer { condition.unlock() }
    return running || finished != nil
  }

  /// Starts preparing a fold of up to `maxEvents` events after the folded
  /// seq committed now. Call only when not `isBusy`.
  public func start(maxEvents: Int) {
    condition.lock()
    precondition(!running && finished == nil, "FoldPreparer.start while busy")
    running = true
    condition.unlock()
    Thread.detachNewThread { [self] in
      let result: Result<PreparedFold?, StoreError>
      do throws(StoreError) {
        result = .success(
          try database.read { () throws(StoreError) in
            try RollupFolder.prepare(database, maxEvents: maxEvents)
          })
      } catch {
        result = .failure(error)
      }
      condition.lock()
      running = false
      finished = result
      condition.broadcast()
      condition.unlock()
    }
  }

  /// The prepared fold once ready (nil inside when nothing was left to
  /// fold), without waiting; nil while still preparing or not started.
  public func takeIfReady() -> Result<PreparedFold?, StoreError>? {
    condition.lock()
    defer { condition.unlock() }
    defer { finished = nil }
    return finished
  }

  /// Waits for the fold started last; nil when none was started.
  public func take() -> Result<PreparedFold?, StoreError>? {
    condition.lock()
    defer { condition.unlock() }
    while running { condition.wait() }
    defer { finished = nil }
    return finished
  }
}
