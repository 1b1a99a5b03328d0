import Foundation

/// Keeps the write-ahead log from growing without bound while reports read
/// beside ingest.
///
/// SQLite's automatic checkpoint (PASSIVE, after a commit once the log holds
/// 1000 pages) copies committed pages into the database file, but only up
/// to the oldest snapshot a reader still holds, and never waits. The log
/// file is rewound to its start only when a writer finds it fully copied and
/// no reader using it. Reports are read transactions of up to seconds, and
/// with a few running back to back some reader always holds a snapshot in
/// the log, each newer than the last: it is never rewound and grows with
/// every commit (docs/performance.md, tools/wal-growth).
///
/// Waiting for the readers inside a checkpoint does not work: a RESTART
/// checkpoint holds the write lock while it waits, stalling ingest, and
/// reports that start meanwhile pin the log again. So once the log passes
/// `restartBytes` the writer closes the `ReadGate`: new reports wait, those
/// reading finish (each has a time limit), ingest goes on. Every
/// `pollSeconds` the writer checks; once no report is reading it rewinds
/// the log (below) and opens the gate. Reports wait at most as long as the
/// longest one running, once per `restartBytes` of commits.
///
/// Copying is most of a restart's time: under the bench's ingest the last
/// fold's pages were still in the log when the gate closed, and a TRUNCATE
/// checkpoint behind the gate copied and synced them while every new
/// report waited. So before the gate closes the writer backfills: a
/// PASSIVE checkpoint every `pollSeconds`, which copies what no reader's
/// snapshot still needs and never waits, until at most `backfilledFrames`
/// are left (the readers of the old snapshots end within a report's time)
/// or `maxBackfillSeconds` pass. The restart behind the closed gate is
/// then a RESTART checkpoint, which only rewinds: the file is cut back by
/// the next commit, gate open. With both, the gate holds reports back for
/// milliseconds instead of hundreds of them (docs/performance.md). A
/// reader outside the gate (a long `uptake export`) can still outlast the
/// hold: after
/// `maxHoldSeconds` the gate opens anyway and the writer tries again
/// `retryAfterGiveUpSeconds` later. `journal_size_limit` covers the ordinary
/// rewinds of the automatic checkpoint and ours, cutting the file back to
/// 16 MiB at the next commit; until the file has been seen under
/// `restartBytes` again no new restart starts.
struct WALCheckpointSchedule {
  /// Log size that starts a restart: at a few thousand events a second that
  /// is tens of seconds of commits, so reports are held back rarely, and it
  /// is small next to any disk a database this busy lives on.
  static let restartBytes = 64 << 20
  /// How often the writer checks for the readers to be gone while holding.
  /// New reports wait at the gate for this long after the last reader
  /// leaves, so it is short: at 100 ms it set the p99 of every report
  /// under the bench (the gate closes every few seconds while ingest
  /// folds; docs/performance.md), and a wake-up every 5 ms only while
  /// holding costs nothing.
  static let pollSeconds = 0.005
  /// Pause after a hold that did not lead to a restart.
  static let retryAfterGiveUpSeconds = 60.0
  /// Frames a backfill may leave in the log before the gate closes: a few
  /// ingest commits' worth, copied in a millisecond or two.
  static let backfilledFrames: Int32 = 256
  /// Longest backfill before the gate closes anyway: a few reports' time.
  static let maxBackfillSeconds = 2.0

  /// What the writer should do about the log now.
  enum Step: Equatable {
    case nothing
    /// Copy what it can with a PASSIVE checkpoint, readers going on; then
    /// call `backfilled(framesLeft:now:)`.
    case backfill
    /// Close the gate to new reports, then try.
    case holdReaders
    /// The gate is closed; try to restart if no report is reading.
    case tryRestart
    /// Held too long: open the gate and retry later.
    case giveUp
  }

  private enum Phase: Equatable {
    case idle
    case backfilling(since: Date)
    case holding(since: Date)
  }

  /// Longest hold: a little over the reports' time limit, by when every
  /// report inside the gate has ended.
  let maxHoldSeconds: Double
  private var phase = Phase.idle
  /// False from a restart until the log file has been cut back: a rewound
  /// log keeps its length until the next commit.
  private var armed = true
  private var lastCheck = Date.distantPast
  private var notBefore = Date.distantPast

  init(maxHoldSeconds: Double) {
    self.maxHoldSeconds = maxHoldSeconds
  }

  var isHoldingReaders: Bool {
    if case .holding = phase { return true }
    return false
  }

  /// True while the writer should wake every `pollSeconds` even without
  /// batches: backfilling or holding.
  var isPolling: Bool { phase != .idle }

  mutating func step(walBytes: Int, now: Date) -> Step {
    switch phase {
    case .holding(let since):
      if now.timeIntervalSince(since) >= maxHoldSeconds {
        phase = .idle
        notBefore = now.addingTimeInterval(Self.retryAfterGiveUpSeconds)
        return .giveUp
      }
      guard now.timeIntervalSince(lastCheck) >= Self.pollSeconds else { return .nothing }
      lastCheck = now
      return .tryRestart
    case .backfilling(let since):
      if now.timeIntervalSince(since) >= Self.maxBackfillSeconds {
        phase = .holding(since: now)
        lastCheck = now
        return .holdReaders
      }
      guard now.timeIntervalSince(lastCheck) >= Self.pollSeconds else { return .nothing }
      lastCheck = now
      return .backfill
    case .idle:
      if walBytes <= Self.restartBytes { armed = true }
      guard armed, walBytes > Self.restartBytes, now >= notBefore else { return .nothing }
      phase = .backfilling(since: now)
      lastCheck = now
      return .backfill
    }
  }

  /// The PASSIVE checkpoint left `framesLeft` frames uncopied: with few
  /// enough, the gate closes now (`.holdReaders`), else backfilling goes on.
  mutating func backfilled(framesLeft: Int32, now: Date) -> Step {
    guard case .backfilling = phase, framesLeft <= Self.backfilledFrames else { return .nothing }
    phase = .holding(since: now)
    lastCheck = now
    return .holdReaders
  }

  /// The log was copied and rewound; the gate may open.
  mutating func restarted() {
    phase = .idle
    armed = false
  }
}
