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
/// every commit (measured: ~800 MiB in a minute, tools/wal-growth).
///
/// Waiting for the readers inside a checkpoint does not work: a RESTART
/// checkpoint holds the write lock while it waits, stalling ingest, and
/// reports that start meanwhile pin the log again. So once the log passes
/// `restartBytes` the writer closes the `ReadGate`: new reports wait, those
/// reading finish (each has a time limit), ingest goes on. Every
/// `pollSeconds` the writer checks; once no report is reading it runs a
/// TRUNCATE checkpoint, which copies the log into the database file and
/// empties it, and opens the gate. Reports wait at most as long as the
/// longest one running, once per `restartBytes` of commits. A reader outside
/// the gate (a long `uptake export`) can still outlast the hold: after
/// `maxHoldSeconds` the gate opens anyway and the writer tries again
/// `retryAfterGiveUpSeconds` later. `journal_size_limit` covers the ordinary
/// rewinds of the automatic checkpoint, cutting the file back to 16 MiB.
struct WALCheckpointSchedule {
  /// Log size that starts a restart: at a few thousand events a second that
  /// is tens of seconds of commits, so reports are held back rarely, and it
  /// is small next to any disk a database this busy lives on.
  static let restartBytes = 64 << 20
  /// How often the writer checks for the readers to be gone while holding.
  /// New reports wait at the gate for this long after the last reader
  /// leaves, so it is short: at 100 ms it was the p99 of every report
  /// under the bench (the gate closes every few seconds while ingest
  /// folds), and a wake-up every 5 ms only while holding costs nothing.
  static let pollSeconds = 0.005
  /// Pause after a hold that did not lead to a restart.
  static let retryAfterGiveUpSeconds = 60.0

  /// What the writer should do about the log now.
  enum Step: Equatable {
    case nothing
    /// Close the gate to new reports, then try.
    case holdReaders
    /// The gate is closed; try to restart if no report is reading.
    case tryRestart
    /// Held too long: open the gate and retry later.
    case giveUp
  }

  /// Longest hold: a little over the reports' time limit, by when every
  /// report inside the gate has ended.
  let maxHoldSeconds: Double
  private(set) var holdingSince: Date?
  private var lastCheck = Date.distantPast
  private var notBefore = Date.distantPast

  init(maxHoldSeconds: Double) {
    self.maxHoldSeconds = maxHoldSeconds
  }

  var isHoldingReaders: Bool { holdingSince != nil }

  mutating func step(walBytes: Int, now: Date) -> Step {
    if let since = holdingSince {
      if now.timeIntervalSince(since) >= maxHoldSeconds {
        holdingSince = nil
        notBefore = now.addingTimeInterval(Self.retryAfterGiveUpSeconds)
        return .giveUp
      }
      guard now.timeIntervalSince(lastCheck) >= Self.pollSeconds else { return .nothing }
      lastCheck = now
      return .tryRestart
    }
    guard walBytes > Self.restartBytes, now >= notBefore else { return .nothing }
    holdingSince = now
    lastCheck = now
    return .holdReaders
  }

  /// The log was copied and emptied; the gate may open.
  mutating func restarted() {
    holdingSince = nil
  }
}
