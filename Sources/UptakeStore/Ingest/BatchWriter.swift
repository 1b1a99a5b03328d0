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

/// The single writer of the daemon's events. Request handlers `submit`
/// batches and are called back once their events are committed; one thread
/// takes everything queued, stores it in one transaction (group commit),
/// then calls every waiting request back. A commit costs the same fsync
/// whether it holds one event or thousands, so under load the batches grow
/// and the fsyncs stay few. Its transactions lock the events file only: a
/// `FoldWriter` of its own folds the events into the aggregates, in their
/// own file, at the same time.
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
    /// the writer waits for the fold thread, so ingest keeps the fold's pace.
    /// Higher lets a burst be stored at the insert path's speed, while every
    /// report during it reads the unfolded events; lower keeps reports quick
    /// and slows a flood's ingest to the fold's rate sooner.
    public var maxUnfoldedEvents = EventInserter.defaultMaxUnfoldedUnderLoad
    /// A cap on each of the database's two files (`--max-db-size`): past
    /// it commits fail as on a full disk. None by default.
    public var maxFileBytes: Int64?

    public init() {}
  }

  /// What the writer reports as it works, for metrics and logs; called on
  /// the writer thread, so each must return quickly.
  public struct Observer: Sendable {
    /// A transaction of `events` events committed in `seconds`.
    public var committed: @Sendable (_ events: Int, _ seconds: Double) -> Void = { _, _ in }
    /// A commit failed; every request in it was answered with the failure.
    public var failed: @Sendable (IngestFailure) -> Void = { _ in }
    /// Upkeep (folding on the fold thread, merging the duplicate index)
    /// failed after working; it is retried every `maintenanceRetrySeconds`
    /// without another call.
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
  /// The writer thread's connection, which `inserter` writes through.
  private let database: Database
  private let folder: FoldWriter
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
  private var rewinder: LogRewinder
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
  /// The writer connection's page cache of the events file. Its inserts
  /// append, and the duplicate index merges sorted keys, so more cache
  /// holds nothing they touch twice: 100-event batches ran at 192,110 /
  /// 193,144 events/s with 8 MiB against 191,763 / 192,173 with 16, and
  /// peaked 8–12 MiB lower (room the fold's steps use).
  static let cacheKiB = 8 * 1024
  /// How often the writer, held back by the backlog cap, looks whether it
  /// is stopping.
  static let backlogWaitSeconds = 0.05

  /// Takes the connection that will be used only by the writer thread, and
  /// opens the fold thread's own. `readGate` is the one the report
  /// connections pass through.
  public init(
    database: Database, limits: Limits = Limits(), readGate: ReadGate = ReadGate(),
    observer: Observer = Observer()
  ) throws(StoreError) {
    // Its transactions lock the events file alone, so the fold thread's
    // never wait for them, nor they for the fold's.
    database.writeLock = .eventsFile
    // The fold thread's connection caches the aggregates; this one needs
    // the events file's hot pages only (see `cacheKiB`).
    try database.execute("PRAGMA main.cache_size = -\(Self.cacheKiB)")
    if let bytes = limits.maxFileBytes { try database.limitSize(toBytes: bytes) }
    let inserter = EventInserter(database: database)
    self.inserter = inserter
    self.database = database
    folder = try FoldWriter(
      path: database.path, maxUnfoldedEvents: limits.maxUnfoldedEvents,
      maxFileBytes: limits.maxFileBytes, readGate: readGate,
      maxReadHoldSeconds: limits.maxReadHoldSeconds,
      unsynced: try UnsyncedRollups.record(in: database),
      failed: observer.maintenanceFailed)
    self.limits = limits
    self.readGate = readGate
    self.observer = observer
    rewinder = LogRewinder(
      maxHoldSeconds: limits.maxReadHoldSeconds, logBytes: { inserter.walBytes },
      backfill: { () throws(StoreError) -> Int32 in try inserter.backfillWriteAheadLog() },
      restart: { () throws(StoreError) -> Bool in try inserter.restartWriteAheadLog() })
  }

  /// Events stored and not folded into the aggregates yet.
  public var unfoldedEvents: Int64 { folder.backlog }

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
    folder.start()
    while true {
      folder.waitUntilBacklog(
        atMost: limits.maxUnfoldedEvents, backlogWaitSeconds: Self.backlogWaitSeconds
      ) {
        isStopping
      }
      guard let jobs = nextJobs() else { break }
      if !jobs.isEmpty { commit(jobs) }
      if jobs.isEmpty && commitFailed {
        probeStorage()
        continue
      }
      if inserter.isMergingDuplicates {
        // A failed step (disk full) is tried again on a later round; it
        // leaves nothing half-done, each step being one transaction.
        do {
          try inserter.mergeNextDuplicateChunk()
          maintenanceFailed = false
        } catch {
          if !maintenanceFailed { observer.maintenanceFailed(error.description) }
          maintenanceFailed = true
        }
      }
      rewinder.step(readGate)
    }
    if folder.stop() {
      // Best effort: a record left standing costs a rebuild only if the
      // machine goes down before the next clean stop.
      try? UnsyncedRollups.clear(in: database)
    }
    rewinder.release(readGate)
    // Everything acknowledged is committed; folding the WAL into the main
    // file now leaves one self-contained file behind. Best effort: the WAL
    // is just as durable if this fails.
    try? inserter.checkpoint()
    condition.lock()
    stopped = true
    condition.broadcast()
    condition.unlock()
  }

  private var isStopping: Bool {
    condition.lock()
    defer { condition.unlock() }
    return stopping
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
  /// means no batch is waiting but a probe or upkeep is due: a probe of
  /// storage `probePause` after a failed commit; a backfill of the log or a
  /// look at the readers every `WALCheckpointSchedule.pollSeconds` while a
  /// restart is under way; the duplicate index's merge at once, or a second
  /// after a step that failed.
  private func nextJobs() -> [Job]? {
    condition.lock()
    defer { condition.unlock() }
    while queue.isEmpty {
      if stopping { return nil }
      if lastCommitFailed || rewinder.isPolling {
        let pause =
          lastCommitFailed ? probePause : WALCheckpointSchedule.pollSeconds
        if !condition.wait(until: Date().addingTimeInterval(pause)) { return [] }
        continue
      }
      guard inserter.isMergingDuplicates else {
        condition.wait()
        continue
      }
      if !maintenanceFailed { return [] }
      if !condition.wait(until: Date().addingTimeInterval(Self.maintenanceRetrySeconds)) {
        return []
      }
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
      folder.stored(through: inserter.lastInsertedSeq)
      for (job, outcome) in zip(jobs, outcomes) { job.completion(.success(outcome)) }
    case .failure(let failure):
      observer.failed(failure)
      setCommitFailed(true)
      for job in jobs { job.completion(.failure(failure)) }
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
