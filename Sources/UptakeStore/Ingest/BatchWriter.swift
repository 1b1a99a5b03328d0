import Foundation
import Synchronization
import UptakeCore

/// The single writer of a process's events: the daemon's, and `uptake
/// import`'s. Request handlers (or the import's reader) `submit` batches
/// and are called back once their events are committed; one thread takes
/// everything queued, stores it in one transaction (group commit,
/// `EventInserter`), then calls every waiting request back. A commit costs
/// the same fsync whether it holds one event or thousands, so under load
/// the batches grow and the fsyncs stay few. Between commits the thread
/// does the events file's upkeep: the duplicate index's merge and the
/// log's rewinding (`LogRewinder`). Its transactions lock the events file
/// only: a `FoldThread` of its own folds the events into the aggregates,
/// in their own file, at the same time.
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
    /// when every report that was reading has ended. Nil: the daemon's
    /// `Service` takes 5 s past its reports' time limit, and a writer on
    /// its own `defaultReadHoldSeconds`.
    public var maxReadHoldSeconds: Double?
    /// 5 s past the reports' default time limit of 30 s.
    public static let defaultReadHoldSeconds = 35.0
    /// `maxReadHoldSeconds`, or its default.
    var readHoldSeconds: Double { maxReadHoldSeconds ?? Self.defaultReadHoldSeconds }
    /// Events stored but not folded into the report aggregates after which
    /// the writer waits for the fold thread, so ingest keeps the fold's pace.
    /// Higher lets a burst be stored at the insert path's speed, while every
    /// report during it reads the unfolded events; lower keeps reports quick
    /// and slows a flood's ingest to the fold's rate sooner.
    public var maxUnfoldedEvents = 1_000_000
    /// The backlog of all apps together before the writer waits: twice one
    /// app's (`nextJobs` holds each app back at `maxUnfoldedEvents`). A
    /// transaction under way may take it past by up to
    /// `maxEventsPerTransaction`.
    public var maxUnfoldedEventsOfAllApps: Int { 2 * maxUnfoldedEvents }
    /// A cap on each of the database's two files (`--max-db-size`): past
    /// it commits fail as on a full disk. None by default.
    public var maxFileBytes: Int64?
    /// Events a fold step takes at most, and so the fold's memory: a step
    /// holds about 80 bytes an event at its peak (130 before session 26
    /// took the presence sightings, the download rows' dictionary and late
    /// events' partial counts out of it; 400,000 events a step then).
    /// Bigger steps cost less an event, as each writes a page of the rollup
    /// tables once for all its events that land there; the daemon's is the
    /// largest that keeps its peak inside the memory bar
    /// (docs/performance.md).
    public var maxFoldStepEvents = 600_000
    /// Under steady ingest below half the backlog cap, a small fold step
    /// this often, so a trickle's reports read a short unfolded tail; nil
    /// for none, where nothing reads reports while the writer runs.
    public var busyFoldSeconds: Double? = 5
    /// The backlog from which the fold runs continuously, step after
    /// step; nil for half of `maxUnfoldedEvents`. Below it, a fold waits
    /// for ingest to pause, or for a busy step.
    public var foldFromEvents: Int?
    /// Whether the fold thread gives way to the request threads
    /// (`FoldThread.nicer`): the daemon's reports and ingest requests come
    /// first. An import has no requests to protect, and a fold that gives
    /// way there only waits for the import's own reader and writer.
    public var foldGivesWay = true
    /// The fold connection's page cache of the rollups file. A step touches
    /// pages all over the install-keyed tables, so under the daemon's steps
    /// more cache saved little and cost resident memory.
    public var foldCacheKiB = 8 * 1024
    /// Bytes of the rollups file the fold's connection reads through a
    /// memory map instead of a read() a page; 0 for none.
    public var foldMapBytes = 0
    /// Duplicate-index keys held in memory before a merge to disk
    /// (`DedupIndex`).
    public var dedupMergeKeys = DedupIndex.defaultMergeThreshold
    /// The writer connection's page cache of the events file. Its inserts
    /// append, and the duplicate index merges sorted keys, so more cache
    /// holds nothing they touch twice.
    public var writerCacheKiB = 8 * 1024
    /// Log bytes after which a commit copies the events file's log back
    /// (SQLite's automatic checkpoint); nil keeps SQLite's 1000 pages
    /// (16 MiB at `Database.pageSize`).
    public var autoCheckpointBytes: Int?
    /// Distinct values of `updateId`, `appVersion` and `osVersion`, each,
    /// an app may have per UTC day of its events (`--max-distinct-per-day`);
    /// an event with a new value past it is rejected alone. It bounds what
    /// a client holding the public ingest key can make the reports hold,
    /// and the writer's memory: at most apps x 92 days x 3 x this values.
    public var maxDistinctPerDay = EventInserter.defaultMaxDistinctPerDay
    /// Whether stored events are folded into the report aggregates. A node
    /// over a ClickHouse cluster answers reports from the cluster, and its
    /// events file is a spool that empties as it ships: it does not fold.
    public var folds = true

    public init() {}

    /// The daemon's defaults for one bulk load in a process of its own,
    /// `uptake import`: commits of the chunks it reads, and a fold that
    /// runs beside them from early on, at full priority, with a large
    /// cache, since history imported touches pages all over the install
    /// tables (docs/performance.md).
    public static var bulkImport: Limits {
      var limits = Limits()
      limits.maxEventsPerTransaction = 5000
      // Folding from 300,000 unfolded events on, at full priority, the
      // fold uses the second core while the reader parses and the writer
      // stores, where a fold left for 4M events ran alone at the end of
      // an import of 1M: 20 % less wall time for them. Steps take what is
      // unfolded, so they grow as ingest outpaces the fold: a big import
      // folds in big steps, cheaper an event (docs/performance.md).
      limits.maxFoldStepEvents = 4_000_000
      limits.maxUnfoldedEvents = 8_000_000
      limits.foldFromEvents = 300_000
      limits.foldGivesWay = false
      limits.busyFoldSeconds = nil
      limits.foldCacheKiB = 512 * 1024
      limits.foldMapBytes = 2 << 30
      limits.dedupMergeKeys = 1 << 22
      // A bulk load checkpointing every few transactions rewrites the
      // same index pages each time; 64 MiB cut that work and still bounds
      // the log.
      limits.autoCheckpointBytes = 64 << 20
      return limits
    }
  }

  /// What the writer reports as it works, for metrics and logs; called on
  /// the writer thread, so each must return quickly.
  public struct Observer: Sendable {
    /// A transaction of `events` events committed in `seconds`.
    public var committed: @Sendable (_ events: Int, _ seconds: Double) -> Void = { _, _ in }
    /// A commit failed; every request in it was answered with the failure.
    public var failed: @Sendable (IngestFailure) -> Void = { _ in }
    /// Upkeep (folding on the fold thread, merging the duplicate index)
    /// failed after working; it is retried every `upkeepRetrySeconds`
    /// without another call.
    public var upkeepFailed: @Sendable (String) -> Void = { _ in }
    /// Storage takes writes again after a failure.
    public var recovered: @Sendable () -> Void = {}
    /// A step of the orderly stop failed (a checkpoint, the rollups file's
    /// sync): what it leaves behind is safe, but worth a line in the log.
    public var stopFailed: @Sendable (String) -> Void = { _ in }
    /// At start, the distinct values of the days in play were read from
    /// what is stored: `values` of them, from the aggregates and
    /// `tailEvents` events not folded yet, in `seconds`.
    public var loadedDistinctValues:
      @Sendable (_ values: Int, _ tailEvents: Int, _ seconds: Double) -> Void = { _, _, _ in }

    public init() {}
  }

  private struct Job {
    let batch: EventBatch
    let completion: Completion
  }

  private let inserter: EventInserter
  /// The writer thread's connection, which `inserter` writes through.
  private let database: Database
  /// Nil when `limits.folds` is off.
  private let folder: FoldThread?
  /// Whether this writer recorded the machine's boot so that its fold
  /// writes the rollups file unsynced (`UnsyncedRollups`).
  private let foldsUnsynced: Bool
  /// What else the writer waits for before committing: a node's shipping.
  private let gate: (any CommitGate)?
  /// The limits it runs with.
  public let limits: Limits
  private let observer: Observer
  private let condition = NSCondition()
  // Guarded by `condition`:
  private var queue = FairQueue<Job>()
  private var stopping = false
  private var stopped = false
  private var started = false
  /// Set by `finish()`: before stopping, merge the duplicate index and
  /// fold every stored event.
  private var finishing = false
  private var lastCommitFailed = false
  /// The seq of the newest event committed.
  private var newestCommittedSeq: Int64 = 0
  /// Only the writer thread touches these two.
  private var upkeepFailed = false
  private var rewinder: LogRewinder
  private let readGate: ReadGate
  /// Seconds between attempts of upkeep that failed (a full disk, say).
  static let upkeepRetrySeconds = 1.0
  /// After a failed commit, the writer probes storage with a small write
  /// after this pause, doubling up to `maxProbeSeconds`: /readyz turns 200
  /// again soon after space returns even if no client sends anything, and a
  /// disk that stays full costs one small transaction every few seconds.
  static let firstProbeSeconds = 0.25
  static let maxProbeSeconds = 4.0
  /// Only the writer thread touches these two.
  private var probePause = firstProbeSeconds
  private var unfolded = UnfoldedByApp()
  /// How often the writer, held back by the backlog cap, looks whether it
  /// is stopping.
  static let backlogWaitSeconds = 0.05

  /// Takes the connection that will be used only by the writer thread, and
  /// opens the fold thread's own. `readGate` is the one the report
  /// connections pass through. With `foldsUnsynced` (the daemon) the fold
  /// writes the rollups file without syncing it where the machine's boot
  /// can be recorded; a second writer on the same database (an import
  /// beside the daemon) must keep syncing, as a clean stop clears the
  /// record for the whole database.
  public init(
    database: Database, limits: Limits = Limits(), readGate: ReadGate = ReadGate(),
    foldsUnsynced: Bool = true, gate: (any CommitGate)? = nil, observer: Observer = Observer()
  ) throws(StoreError) {
    // Its transactions lock the events file alone, so the fold thread's
    // never wait for them, nor they for the fold's.
    database.writeLock = .eventsFile
    // The fold thread's connection caches the aggregates; this one needs
    // the events file's hot pages only.
    try database.execute("PRAGMA main.cache_size = -\(limits.writerCacheKiB)")
    if let bytes = limits.autoCheckpointBytes { try database.autoCheckpoint(afterBytes: bytes) }
    if let bytes = limits.maxFileBytes { try database.limitSize(toBytes: bytes) }
    inserter = EventInserter(
      database: database, dedupMergeKeys: limits.dedupMergeKeys,
      maxDistinctPerDay: limits.maxDistinctPerDay)
    // Before the first batch, so the cap counts what earlier runs stored
    // (a restart must not give a client its allowance again) and the
    // first batch does not wait for it.
    let loaded = try inserter.loadDistinctValues()
    observer.loadedDistinctValues(loaded.values, loaded.tailEvents, loaded.seconds)
    self.database = database
    newestCommittedSeq = try database.newestEventSeq()
    let unsynced =
      foldsUnsynced && limits.folds ? try UnsyncedRollups.record(in: database) : false
    self.foldsUnsynced = unsynced
    folder =
      limits.folds
      ? try FoldThread(
        path: database.path, limits: limits, readGate: readGate, unsynced: unsynced,
        observer: observer) : nil
    self.limits = limits
    self.readGate = readGate
    self.gate = gate
    self.observer = observer
    rewinder = LogRewinder(database, schema: "main", maxHoldSeconds: limits.readHoldSeconds)
  }

  /// The seq of the newest event committed: what a node has to ship.
  public var committedSeq: Int64 {
    condition.lock()
    defer { condition.unlock() }
    return newestCommittedSeq
  }

  /// Events stored and not folded into the aggregates yet.
  public var unfoldedEvents: Int64 { folder?.backlog ?? 0 }

  /// Queues a batch. Returns false, without calling `completion`, when the
  /// queue is full or the writer is stopping.
  public func submit(_ batch: EventBatch, completion: @escaping Completion) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    // An app may fill half the queue: another app always finds room.
    let count = batch.events.count
    guard !stopping, queue.events + count <= limits.maxQueuedEvents,
      queue.events(of: batch.appNo) + count <= max(1, limits.maxQueuedEvents / 2)
    else {
      return false
    }
    queue.append(Job(batch: batch, completion: completion), appNo: batch.appNo, events: count)
    condition.signal()
    return true
  }

  /// Queues a batch and waits until it is committed: for a caller with
  /// nothing else to do meanwhile, such as an import's loop. `overloaded`
  /// when the queue is full or the writer is stopping.
  public func storeAndWait(_ batch: EventBatch) -> Result<InsertOutcome, IngestFailure> {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result<InsertOutcome, IngestFailure>>(.failure(.overloaded))
    let queued = submit(batch) { outcome in
      result.withLock { $0 = outcome }
      done.signal()
    }
    guard queued else { return .failure(.overloaded) }
    done.wait()
    return result.withLock { $0 }
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
    return queue.events
  }

  /// Starts the writer thread, and with it the fold thread. Batches may
  /// be queued before; `stop()` waits for the thread only once started.
  public func start() {
    condition.lock()
    precondition(!started, "BatchWriter.start() called twice")
    started = true
    condition.unlock()
    let thread = Thread { [self] in run() }
    thread.name = "uptake-writer"
    thread.start()
  }

  /// The writer loop. Returns after `stop()`, once every queued batch has
  /// been committed (or failed) and answered.
  private func run() {
    folder?.start()
    while true {
      // Each app's own backlog holds back its own batches (`nextJobs`);
      // this bounds them all together, at twice one app's.
      folder?.waitUntilBacklog(
        atMost: limits.maxUnfoldedEventsOfAllApps, backlogWaitSeconds: Self.backlogWaitSeconds
      ) {
        isStopping
      }
      if let gate {
        while !gate.waitForRoom(committedSeq: committedSeq, seconds: Self.backlogWaitSeconds)
          && !isStopping
        {}
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
          upkeepFailed = false
        } catch {
          if !upkeepFailed { observer.upkeepFailed(error.description) }
          upkeepFailed = true
        }
      }
      rewinder.step(readGate)
    }
    if isFinishing { finishUpkeep() }
    stopFolding()
    // Everything acknowledged is committed; folding the WAL into the main
    // file now leaves one self-contained file behind. Best effort: the WAL
    // is just as durable if this fails.
    do {
      _ = try rewinder.finish(readGate)
    } catch {
      observer.stopFailed("the events file's log was left in place: \(error.description)")
    }
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

  /// Refuses new batches, lets the writer drain the queue, and waits for
  /// it. Returns at once when `start()` was never called: there is no
  /// thread to wait for, and a writer that never ran must not hang its
  /// owner.
  public func stop() {
    condition.lock()
    stopping = true
    condition.broadcast()
    while started && !stopped { condition.wait() }
    condition.unlock()
  }

  /// Stops as `stop()` does, but first merges the duplicate index to disk
  /// and folds every stored event: for a bulk load that ends with its
  /// process, so the daemon that opens the database next starts with
  /// nothing to catch up on. Throws what made that upkeep fail.
  public func finish() throws(StoreError) {
    condition.lock()
    finishing = true
    condition.unlock()
    stop()
    if let finishError { throw finishError }
  }

  private var isFinishing: Bool {
    condition.lock()
    defer { condition.unlock() }
    return finishing
  }

  /// Set on the writer thread when `finish()`'s upkeep failed.
  private var finishError: StoreError?

  /// `finish()`'s upkeep, on the writer thread once the queue is empty.
  private func finishUpkeep() {
    do {
      try inserter.mergeDuplicateKeys()
      try folder?.foldEverything()
    } catch {
      finishError = error
    }
  }

  /// Ends the fold thread and, when it left the rollups file synced whole,
  /// clears the record that let it write unsynced.
  private func stopFolding() {
    guard let folder, folder.stop(), foldsUnsynced else { return }
    do {
      try UnsyncedRollups.clear(in: database)
    } catch {
      // A record left standing costs a rebuild only if the machine goes
      // down before the next clean stop.
      observer.stopFailed("the unsynced rollups' record was left: \(error.description)")
    }
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
      if !upkeepFailed { return [] }
      if !condition.wait(until: Date().addingTimeInterval(Self.upkeepRetrySeconds)) {
        return []
      }
    }
    // Apps whose own events the fold lags by more than the cap wait; the
    // others' batches go ahead of them. Stopping, every batch goes.
    let progress = folder?.progress
    // With several apps waiting, shorter transactions: each app's batch
    // waits for the commit under way and its own, and a full one of a
    // flood took 60 ms (tools/attack).
    let maxEvents =
      queue.appsWaiting > 1
      ? max(1, limits.maxEventsPerTransaction / 4) : limits.maxEventsPerTransaction
    let jobs = queue.take(maxEvents: maxEvents) { appNo in
      guard let progress else { return true }
      return stopping || progress.failing
        || unfolded.events(of: appNo, foldedSeq: progress.foldedSeq) <= limits.maxUnfoldedEvents
    }
    if jobs.isEmpty {
      _ = condition.wait(until: Date().addingTimeInterval(Self.backlogWaitSeconds))
    }
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
      setCommitFailed(false, committedThrough: inserter.lastInsertedSeq)
      if let folder {
        var committedByApp: [Int64: Int] = [:]
        for job in jobs { committedByApp[job.batch.appNo, default: 0] += job.batch.events.count }
        for (appNo, events) in committedByApp {
          unfolded.committed(events, appNo: appNo, throughSeq: inserter.lastInsertedSeq)
        }
        folder.stored(through: inserter.lastInsertedSeq)
      }
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

  /// Records whether the last commit (or probe) failed, and after a
  /// commit that worked, the seq it stored through, under one lock.
  private func setCommitFailed(_ failed: Bool, committedThrough seq: Int64? = nil) {
    condition.lock()
    let wasFailed = lastCommitFailed
    lastCommitFailed = failed
    if let seq { newestCommittedSeq = seq }
    condition.unlock()
    if failed && !wasFailed { probePause = Self.firstProbeSeconds }
    if wasFailed && !failed { observer.recovered() }
  }
}
