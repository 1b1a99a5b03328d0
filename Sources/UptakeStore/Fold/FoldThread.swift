import Foundation

/// Decides when to fold the writer's stored events into the report
/// aggregates, and folds them (`RollupFolder`) on a thread and connection
/// of its own, beside the batch writer: the aggregates are in their own
/// file (`RollupsFile`), so a fold takes that file's write lock only and
/// the writer goes on storing events meanwhile.
///
/// A fold step reads its events in a short read transaction, then writes
/// the aggregates in a transaction on the rollups file alone, so it holds
/// no snapshot of the events file while it writes and never keeps the
/// writer from rewinding that file's log. It rewinds the rollups file's log
/// itself, through the same `ReadGate`.
///
/// When it folds: whatever is stored once ingest pauses; under steady
/// ingest a small step every few seconds, so a trickle's reports read a
/// short unfolded tail; and continuously, in big steps, once half the
/// backlog cap is unfolded. Folding takes CPU the request threads would
/// use, so a burst is not folded while it lasts unless it grows that
/// large (docs/performance.md). The writer tells it how far
/// events are stored; past the cap the writer waits for it
/// (`waitUntilBacklog(atMost:)`), so reports never read more than that many
/// unfolded events.
final class FoldThread: @unchecked Sendable {
  /// A step under steady ingest, below `foldAtOnceEvents`: small, so a
  /// trickle's reports read a short unfolded tail at little cost.
  static let busyStepEvents = 10_000
  /// Ingest paused this long: fold what is there.
  static let idleSeconds = 0.2
  /// Seconds between attempts after a step failed (a full disk, say).
  static let retrySeconds = 1.0

  private let database: Database
  private let folder: RollupFolder
  /// Events per step at most (`BatchWriter.Limits.maxFoldStepEvents`).
  private let maxStepEvents: Int
  /// Seconds between busy steps under steady ingest; nil for none
  /// (`BatchWriter.Limits.busyFoldSeconds`).
  private let busyIntervalSeconds: Double?
  /// Whether it runs `nicer` than the request threads
  /// (`BatchWriter.Limits.foldGivesWay`).
  private let givesWay: Bool
  /// Backlog from which the fold runs continuously: half the cap unless
  /// `BatchWriter.Limits.foldFromEvents` says otherwise.
  private let foldAtOnceEvents: Int
  private let readGate: ReadGate
  private let observer: BatchWriter.Observer
  private let condition = NSCondition()
  // Guarded by `condition`:
  private var storedThroughSeq: Int64
  private var foldedThroughSeq: Int64
  private var lastStored = Date()
  private var stopping = false
  private var running = false
  /// Why the last step failed; nil once a step works. While set, the
  /// next step is a retry.
  private var lastFailure: StoreError?
  private var foldFails: Bool { lastFailure != nil }
  /// Set by `foldEverything()`: fold what is stored without waiting for
  /// ingest to pause.
  private var foldingEverything = false
  /// Whether this connection writes the rollups file unsynced
  /// (`UnsyncedRollups`).
  private let unsynced: Bool
  /// Set by the fold thread as it ends: the rollups file is synced whole.
  private var leftSynced = false
  /// Only the fold thread touches these.
  private var lastFold = Date.distantPast
  private var rewinder: LogRewinder

  /// Opens its own connection to the database at `path`, sized and capped
  /// by `limits` (`maxFileBytes` caps the rollups file as `--max-db-size`
  /// caps the events file: a fold past it fails as on a full disk, and is
  /// retried). With `unsynced` it writes the rollups file without syncing
  /// it: only once the machine's boot is recorded
  /// (`UnsyncedRollups.record`). `observer.upkeepFailed` is called on
  /// the fold thread when a step fails after steps that worked.
  init(
    path: String, limits: BatchWriter.Limits, readGate: ReadGate, unsynced: Bool = false,
    observer: BatchWriter.Observer = BatchWriter.Observer()
  ) throws(StoreError) {
    foldAtOnceEvents = max(1, limits.foldFromEvents ?? limits.maxUnfoldedEvents / 2)
    maxStepEvents = limits.maxFoldStepEvents
    busyIntervalSeconds = limits.busyFoldSeconds
    givesWay = limits.foldGivesWay
    let database = try Database(path: path, create: false)
    database.writeLock = .rollupsFile
    // It reads the events once each, in seq order: their pages need no
    // cache. A fold step touches pages all over the install-keyed tables
    // (see `BatchWriter.Limits.foldCacheKiB`).
    try database.execute("PRAGMA main.cache_size = -2048")
    try database.execute("PRAGMA rollups.cache_size = -\(limits.foldCacheKiB)")
    if limits.foldMapBytes > 0 {
      try database.execute("PRAGMA rollups.mmap_size = \(limits.foldMapBytes)")
    }
    if let maxFileBytes = limits.maxFileBytes {
      try database.limitSize(toBytes: maxFileBytes, schema: "rollups")
    }
    if unsynced { try database.execute("PRAGMA rollups.synchronous = OFF") }
    self.unsynced = unsynced
    self.database = database
    folder = RollupFolder(database: database)
    self.readGate = readGate
    self.observer = observer
    (storedThroughSeq, foldedThroughSeq) = try database.read {
      () throws(StoreError) -> (Int64, Int64) in
      (
        try database.newestEventSeq(),
        try RollupFolder.foldedSeq(database)
      )
    }
    rewinder = LogRewinder(
      database, schema: "rollups", maxHoldSeconds: limits.readHoldSeconds)
  }

  /// The last sequence number folded, and whether folding fails (then no
  /// one waits for it: stored events are safe, and a fold that cannot
  /// write must not stop ingest too).
  var progress: (foldedSeq: Int64, failing: Bool) {
    condition.lock()
    defer { condition.unlock() }
    return (foldedThroughSeq, foldFails)
  }

  /// Events stored and not folded yet.
  var backlog: Int64 {
    condition.lock()
    defer { condition.unlock() }
    return storedThroughSeq - foldedThroughSeq
  }

  /// The writer committed events up to `seq`. The fold thread is woken
  /// only when that changes what it waits for, a backlog appearing or
  /// reaching `foldAtOnceEvents`, not for every commit: single-event
  /// ingest commits a couple of thousand times a second, and its timed
  /// waits read `lastStored` when they end.
  func stored(through seq: Int64) {
    condition.lock()
    let before = storedThroughSeq - foldedThroughSeq
    storedThroughSeq = max(storedThroughSeq, seq)
    lastStored = Date()
    let after = storedThroughSeq - foldedThroughSeq
    if before <= 0 || (before < foldAtOnceEvents && after >= foldAtOnceEvents) {
      condition.broadcast()
    }
    condition.unlock()
  }

  /// Waits while more than `limit` events are unfolded, looking every
  /// `backlogWaitSeconds` whether the caller `gives up` (it is stopping).
  /// Returns at once while folding fails: stored events are safe, and a
  /// fold that cannot write must not stop ingest too.
  func waitUntilBacklog(
    atMost limit: Int, backlogWaitSeconds: Double, givesUp: () -> Bool
  ) {
    condition.lock()
    defer { condition.unlock() }
    while running && !stopping && !foldFails
      && storedThroughSeq - foldedThroughSeq > Int64(limit)
    {
      condition.unlock()
      let stop = givesUp()
      condition.lock()
      if stop { return }
      _ = condition.wait(until: Date().addingTimeInterval(backlogWaitSeconds))
    }
  }

  /// How much nicer the fold thread is than the request threads, so a fold
  /// step gives way to the reports and ingest requests beside it: at 5,
  /// Linux weighs it about a third of a busy request thread, so it still
  /// folds a trickle's few thousand events a second beside any reports.
  /// Under a flood the writer waits for the fold at the backlog cap, and
  /// the fold then has the CPU to itself.
  static let nicer: Int32 = 5

  /// Makes this thread `nicer` than the process (Linux keeps a nice value
  /// per thread). Failing leaves it as it was: only latency is at stake.
  private static func yieldToRequests() {
    let which = __priority_which_t(PRIO_PROCESS.rawValue)
    errno = 0
    let current = getpriority(which, 0)
    guard errno == 0 else { return }
    _ = setpriority(which, 0, min(19, current + nicer))
  }

  /// Starts the fold thread.
  func start() {
    condition.lock()
    running = true
    condition.unlock()
    let thread = Thread { [self] in run() }
    thread.name = "uptake-fold"
    thread.start()
  }

  /// Folds every event stored so far and returns once they are folded:
  /// for a writer that finishes a bulk load. Throws what made a step fail.
  func foldEverything() throws(StoreError) {
    condition.lock()
    defer { condition.unlock() }
    foldingEverything = true
    condition.broadcast()
    while running && !foldFails && storedThroughSeq > foldedThroughSeq { condition.wait() }
    if let lastFailure { throw lastFailure }
  }

  /// Ends the fold thread after the step under way, and waits for it.
  /// Returns whether it left the rollups file synced whole, its log
  /// copied in and truncated.
  @discardableResult
  func stop() -> Bool {
    condition.lock()
    defer { condition.unlock() }
    stopping = true
    condition.broadcast()
    while running { condition.wait() }
    return leftSynced
  }

  private func run() {
    if givesWay { Self.yieldToRequests() }
    while let size = nextStep() {
      if size > 0 { fold(size) }
      rewinder.step(readGate)
    }
    // Leaves the rollups file whole without its log, synced, even when
    // folding unsynced. Best effort: the log is as good, and an unsynced
    // file left so is rebuilt only if the machine goes down.
    var synced = false
    do {
      if unsynced { try database.execute("PRAGMA rollups.synchronous = NORMAL") }
      synced = try rewinder.finish(readGate)
    } catch {
      observer.stopFailed("the rollups file's log was left in place: \(error.description)")
    }
    // Closed here, before `stop()` returns: a process exiting right after
    // (`uptake import`) would otherwise leave the connection open, and
    // with it the log files, for the next opening to clean up.
    database.close()
    condition.lock()
    leftSynced = synced
    running = false
    condition.broadcast()
    condition.unlock()
  }

  /// Waits for a step worth folding: its size, 0 when only the log's
  /// rewinding is due, nil once stopping.
  private func nextStep() -> Int? {
    condition.lock()
    defer { condition.unlock() }
    while !stopping {
      let backlog = Int(storedThroughSeq - foldedThroughSeq)
      let now = Date()
      var due = Date.distantFuture
      if backlog > 0 {
        if foldFails {
          due = lastFold.addingTimeInterval(Self.retrySeconds)
          if now >= due { return min(backlog, maxStepEvents) }
        } else if backlog >= foldAtOnceEvents || foldingEverything
          || now >= lastStored.addingTimeInterval(Self.idleSeconds)
        {
          return min(backlog, maxStepEvents)
        } else {
          let busyStep = busyIntervalSeconds.map(lastFold.addingTimeInterval) ?? .distantFuture
          if now >= busyStep { return min(backlog, Self.busyStepEvents) }
          due = min(lastStored.addingTimeInterval(Self.idleSeconds), busyStep)
        }
      }
      if rewinder.isPolling {
        due = min(due, now.addingTimeInterval(WALCheckpointSchedule.pollSeconds))
      }
      if due == .distantFuture {
        condition.wait()
      } else if !condition.wait(until: due) && rewinder.isPolling {
        return 0
      }
    }
    return nil
  }

  /// One step: its events read in a read transaction, its rows written in
  /// a transaction that locks the rollups file alone.
  private func fold(_ size: Int) {
    lastFold = Date()
    do {
      var step = try database.read { () throws(StoreError) -> PreparedFold? in
        try RollupWriter.prepare(database, maxEvents: size)
      }
      // Handed over, not copied: a second reference to the step's arrays
      // would make the fold's in-place sort copy its events.
      if let prepared = step.take() { try folder.fold(consume prepared) }
      let folded = try database.read { () throws(StoreError) -> Int64 in
        try RollupFolder.foldedSeq(database)
      }
      condition.lock()
      foldedThroughSeq = folded
      lastFailure = nil
      condition.broadcast()
      condition.unlock()
    } catch {
      condition.lock()
      let wasFailing = foldFails
      lastFailure = error
      condition.broadcast()
      condition.unlock()
      if !wasFailing { observer.upkeepFailed(error.description) }
    }
  }
}
