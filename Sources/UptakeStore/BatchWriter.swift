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
    /// Longest the writer holds new reports back to rewind the log
    /// (`WALCheckpointSchedule`): a little over the reports' time limit, by
    /// when every report that was reading has ended.
    public var maxReadHoldSeconds = 35.0
    /// Events stored but not folded into the report aggregates after which
    /// the writer folds at the pace of ingest (`EventInserter`). Higher
    /// lets a burst be stored at the insert path's speed, while every report
    /// during it reads the unfolded events; lower keeps reports quick and
    /// slows a flood's ingest to the fold's rate sooner.
    public var maxUnfoldedEvents = EventInserter.defaultMaxUnfoldedUnderLoad

    public init() {}
  }

  /// What the writer reports as it works, for metrics and logs; called on
  /// the writer thread, so each must return quickly.
  public struct Observer: Sendable {
    /// A transaction of `events` events committed in `seconds`.
    public var committed: @Sendable (_ events: Int, _ seconds: Double) -> Void = { _, _ in }
    /// A commit failed; every request in it was answered with the failure.
    public var failed: @Sendable (IngestFailure) -> Void = { _ in }
    /// Upkeep (folding, merging the duplicate index) failed after working;
    /// it is retried every `maintenanceRetrySeconds` without another call.
    public var maintenanceFailed: @Sendable (String) -> Void = { _ in }
    /// Storage takes writes again after a failure.
    public var recovered: @Sendable () -> Void = {}

    public init() {}
  }

  private struct Job {
    let batch: EventBatch
    let completion: Completion
  }

  private let inserter: EventInserter
  private let limits: Limits
  private let observer: Observer
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
  private var checkpointSchedule: WALCheckpointSchedule
  private var logSize = LogSizeSample()
  private let readGate: ReadGate
  /// Seconds between attempts of upkeep that failed (a full disk, say).
  static let maintenanceRetrySeconds = 1.0
  /// After a failed commit, the writer probes storage with a small write
  /// after this pause, doubling up to `maxProbeSeconds`: /readyz turns 200
  /// again soon after space returns even if no client sends anything, and a
  /// disk that stays full costs one small transaction every few seconds.
  static let firstProbeSeconds = 0.25
  static let maxProbeSeconds = 4.0
  /// Only the writer thread touches this.
  private var probePause = firstProbeSeconds
  /// Seconds without batches after which the writer counts as idle and folds
  /// stored events into the report aggregates.
  static let idleSeconds = 0.2

  /// Takes the connection that will be used only by the writer thread.
  /// `readGate` is the one the report connections pass through.
  public init(
    database: Database, limits: Limits = Limits(), readGate: ReadGate = ReadGate(),
    observer: Observer = Observer()
  ) {
    let inserter = EventInserter(database: database)
    inserter.maxUnfoldedUnderLoad = limits.maxUnfoldedEvents
    self.inserter = inserter
    self.limits = limits
    self.readGate = readGate
    self.observer = observer
    checkpointSchedule = WALCheckpointSchedule(maxHoldSeconds: limits.maxReadHoldSeconds)
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

  private var commitFailed: Bool {
    condition.lock()
    defer { condition.unlock() }
    return lastCommitFailed
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
      if jobs.isEmpty && commitFailed {
        probeStorage()
        continue
      }
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
          if !maintenanceFailed { observer.maintenanceFailed(error.description) }
          maintenanceFailed = true
        }
        foldSchedule.stepFinished(started: started, now: Date())
      }
      restartLogIfDue()
    }
    readGate.open()
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
  /// means no batch is waiting but a probe or a maintenance step is due: a
  /// probe of storage `probePause` after a failed commit; a backfill of the
  /// log or a look at the readers every `WALCheckpointSchedule.pollSeconds`
  /// while a restart is under way; the duplicate index's merge at once; a
  /// fold after `idleSeconds` without batches; a second after a step that
  /// failed.
  private func nextJobs() -> [Job]? {
    condition.lock()
    defer { condition.unlock() }
    while queue.isEmpty {
      if stopping { return nil }
      if lastCommitFailed || checkpointSchedule.isPolling {
        let pause =
          lastCommitFailed ? probePause : WALCheckpointSchedule.pollSeconds
        if !condition.wait(until: Date().addingTimeInterval(pause)) { return [] }
        continue
      }
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
    let started = DispatchTime.now().uptimeNanoseconds
    let result: Result<[InsertOutcome], IngestFailure>
    do {
      result = .success(try inserter.insert(jobs.map(\.batch)))
    } catch {
      result = .failure(
        error.isUnavailable ? .unavailable(error.description) : .failed(error.description))
    }
    switch result {
    case .success(let outcomes):
      observer.committed(
        jobs.reduce(0) { $0 + $1.batch.events.count },
        Double(DispatchTime.now().uptimeNanoseconds &- started) / 1e9)
      setCommitFailed(false)
      for (job, outcome) in zip(jobs, outcomes) { job.completion(.success(outcome)) }
    case .failure(let failure):
      observer.failed(failure)
      setCommitFailed(true)
      for job in jobs { job.completion(.failure(failure)) }
    }
  }

  /// Rewinds a write-ahead log that readers have kept growing; see
  /// `WALCheckpointSchedule` for why and when. Best effort: a log that stays
  /// long costs disk space and read speed, never correctness.
  private func restartLogIfDue() {
    let now = Date()
    let walBytes = logSize.bytes(now: now) { inserter.walBytes }
    var step = checkpointSchedule.step(walBytes: walBytes, now: now)
    if step == .backfill {
      // A failed backfill (disk full) leaves the frames to the restart.
      let left = (try? inserter.backfillWriteAheadLog()) ?? 0
      step = checkpointSchedule.backfilled(framesLeft: left, now: Date())
    }
    switch step {
    case .nothing, .backfill:
      return
    case .giveUp:
      readGate.open()
      return
    case .holdReaders:
      readGate.close()
    case .tryRestart:
      break
    }
    guard readGate.activeReaders == 0 else { return }
    if (try? inserter.restartWriteAheadLog()) == true {
      checkpointSchedule.restarted()
      readGate.open()
    }
  }

  /// Tries a small write after a failed commit; on success storage counts as
  /// taking writes again, else the next probe waits twice as long.
  private func probeStorage() {
    do {
      try inserter.probeWritableSpace()
      setCommitFailed(false)
    } catch {
      probePause = min(Self.maxProbeSeconds, probePause * 2)
    }
  }

  private func setCommitFailed(_ failed: Bool) {
    condition.lock()
    let wasFailed = lastCommitFailed
    lastCommitFailed = failed
    condition.unlock()
    if failed && !wasFailed { probePause = Self.firstProbeSeconds }
    if wasFailed && !failed { observer.recovered() }
  }
}

/// When a busy writer may spend time on upkeep: at least five seconds after
/// the last step, and at least nine times that step's duration. Every request
/// waits for a busy step (tens of milliseconds), and reports add what is not
/// folded yet, so a flood is better served by folding in its pauses; the
/// backlog cap (`Limits.maxUnfoldedEvents`) still bounds the lag.
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
