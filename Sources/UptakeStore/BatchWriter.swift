import Foundation
import UptakeCore

/// Why a batch could not be stored.
public enum IngestFailure: Error, Sendable {
  /// The queue is full or the writer is stopping: the client should retry.
  case overloaded
  /// Storage refused the commit (disk full, read-only, I/O error).
  case unavailable(String)
  /// Anything else; a bug or a damaged database.
  case failed(String)
}

/// The single writer of the daemon. Request handlers `submit` batches and are
/// called back once their events are committed; one thread takes everything
/// queued, stores it in one transaction (group commit), then calls every
/// waiting request back. A commit costs the same fsync whether it holds one
/// event or thousands, so under load the batches grow and the fsyncs stay few.
public final class BatchWriter: @unchecked Sendable {
  public typealias Completion = @Sendable (Result<InsertOutcome, IngestFailure>) -> Void

  /// Limits of the queue, as named numbers with their reasons.
  public struct Limits: Sendable {
    /// Events waiting for the writer at most. At ~250 bytes an event this
    /// bounds the queue's memory near 25 MiB; beyond it clients get 503 and
    /// retry, instead of the daemon growing without bound.
    public var maxQueuedEvents = 100_000
    /// Events in one transaction at most, so one commit (and the wait of the
    /// requests in it) stays in the tens of milliseconds.
    public var maxEventsPerTransaction = 20_000

    public init() {}
  }

  private struct Job {
    let batch: EventBatch
    let completion: Completion
  }

  private let inserter: EventInserter
  private let limits: Limits
  private let condition = NSCondition()
  // Guarded by `condition`:
  private var queue: [Job] = []
  private var queuedEvents = 0
  private var stopping = false
  private var stopped = false
  private var lastCommitFailed = false
  /// Only the writer thread touches these two.
  private var maintenanceFailed = false
  private var foldSchedule = FoldSchedule()
  /// Seconds between attempts of upkeep that failed (a full disk, say).
  static let maintenanceRetrySeconds = 1.0
  /// Seconds without batches after which the writer counts as idle and folds
  /// stored events into the report aggregates.
  static let idleSeconds = 0.2

  /// Takes the connection that will be used only by the writer thread.
  public init(database: Database, limits: Limits = Limits()) {
    self.inserter = EventInserter(database: database)
    self.limits = limits
  }

  /// Queues a batch. Returns false, without calling `completion`, when the
  /// queue is full or the writer is stopping.
  public func submit(_ batch: EventBatch, completion: @escaping Completion) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    guard !stopping, queuedEvents + batch.events.count <= limits.maxQueuedEvents else {
      return false
    }
    queue.append(Job(batch: batch, completion: completion))
    queuedEvents += batch.events.count
    condition.signal()
    return true
  }

  /// True while storage takes writes: the last commit succeeded and the
  /// writer is not stopping.
  public var isAcceptingWrites: Bool {
    condition.lock()
    defer { condition.unlock() }
    return !stopping && !lastCommitFailed
  }

  /// Events waiting for the writer.
  public var queueDepth: Int {
    condition.lock()
    defer { condition.unlock() }
    return queuedEvents
  }

  /// The writer loop. Returns after `stop()`, once every queued batch has
  /// been committed (or failed) and answered.
  public func run() {
    while let jobs = nextJobs() {
      if !jobs.isEmpty { commit(jobs) }
      // An empty array means the writer waited idle: fold freely. While
      // batches keep coming, fold on a duty cycle, so reports never lag far
      // behind a steady stream yet folding takes at most a tenth of the
      // writer's time under a flood.
      let idle = jobs.isEmpty
      let mayFold = idle || foldSchedule.isDue(now: Date())
      if inserter.needsMaintenance(mayFold: mayFold) {
        // A failed step (disk full) is tried again on a later round; it
        // leaves nothing half-done, each step being one transaction.
        let started = Date()
        do {
          try inserter.performMaintenanceStep(mayFold: mayFold, busy: !idle)
          maintenanceFailed = false
        } catch {
          maintenanceFailed = true
        }
        foldSchedule.stepFinished(started: started, now: Date())
      }
    }
    // Everything acknowledged is committed; folding the WAL into the main
    // file now leaves one self-contained file behind. Best effort: the WAL
    // is just as durable if this fails.
    try? inserter.checkpoint()
    condition.lock()
    stopped = true
    condition.broadcast()
    condition.unlock()
  }

  /// Refuses new batches, lets the writer drain the queue, and waits for it.
  public func stop() {
    condition.lock()
    stopping = true
    condition.broadcast()
    while !stopped { condition.wait() }
    condition.unlock()
  }

  /// Waits for work; nil when stopping with nothing left. An empty array
  /// means no batch is waiting but a maintenance step is due: at once for
  /// the duplicate index's merge, after `idleSeconds` without batches for a
  /// fold, or a second after a step that failed.
  private func nextJobs() -> [Job]? {
    condition.lock()
    defer { condition.unlock() }
    while queue.isEmpty {
      if stopping { return nil }
      guard inserter.needsMaintenance(mayFold: true) else {
        condition.wait()
        continue
      }
      let pause = maintenanceFailed ? Self.maintenanceRetrySeconds : Self.idleSeconds
      if inserter.isMergingDuplicates && !maintenanceFailed { return [] }
      if !condition.wait(until: Date().addingTimeInterval(pause)) { return [] }
    }
    var taken = 0
    var events = 0
    while taken < queue.count
      && (taken == 0 || events + queue[taken].batch.events.count <= limits.maxEventsPerTransaction)
    {
      events += queue[taken].batch.events.count
      taken += 1
    }
    let jobs = Array(queue.prefix(taken))
    queue.removeFirst(taken)
    queuedEvents -= events
    return jobs
  }

  private func commit(_ jobs: [Job]) {
    let result: Result<[InsertOutcome], IngestFailure>
    do {
      result = .success(try inserter.insert(jobs.map(\.batch)))
    } catch {
      result = .failure(
        error.isUnavailable ? .unavailable(error.description) : .failed(error.description))
    }
    condition.lock()
    if case .success = result { lastCommitFailed = false } else { lastCommitFailed = true }
    condition.unlock()
    switch result {
    case .success(let outcomes):
      for (job, outcome) in zip(jobs, outcomes) { job.completion(.success(outcome)) }
    case .failure(let failure):
      for job in jobs { job.completion(.failure(failure)) }
    }
  }
}

/// When a busy writer may spend time on upkeep: at least five seconds after
/// the last step, and at least nine times that step's duration. Every request
/// waits for a busy step (tens of milliseconds), and reports add what is not
/// folded yet, so a flood is better served by folding in its pauses; the
/// backlog cap (`EventInserter.maxUnfoldedUnderLoad`) still bounds the lag.
struct FoldSchedule {
  static let minimumInterval = 5.0
  static let busyShare = 0.1

  private var lastEnd = Date.distantPast
  private var lastDuration = 0.0

  func isDue(now: Date) -> Bool {
    let pause = max(Self.minimumInterval, lastDuration * (1 - Self.busyShare) / Self.busyShare)
    return now.timeIntervalSince(lastEnd) >= pause
  }

  mutating func stepFinished(started: Date, now: Date) {
    lastEnd = now
    lastDuration = now.timeIntervalSince(started)
  }
}
