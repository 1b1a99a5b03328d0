import Foundation

/// Keeps the write-ahead log from growing without bound while reports read
/// beside ingest.
///
/// SQLite's automatic checkpoint (PASSIVE, after a commit once the log holds
/// 1000 pages) copies committed pages into the database file, but only up
/// to the oldest snapshot a reader still holds, and never waits. The log
/// file is rewound to its start only when a writer finds it fully copied and
/// no reader using it. Reports are read transactions of up to a second or
/// two, and with a few running back to back some reader nearly always holds
/// a snapshot in the log: it is never rewound and grows with every commit.
///
/// So once the log passes `restartBytes` the writer runs a RESTART
/// checkpoint: it copies everything, then waits for the readers still in the
/// log to finish (new readers, finding it fully copied, read the database
/// file instead and do not hold it) so the next commit rewinds it. The wait
/// holds ingest for at most `maxWaitMilliseconds`; past it the writer gives
/// up and tries again later, backing off from `firstRetrySeconds` to
/// `maxRetrySeconds` while reports keep outlasting it, so a report that runs
/// long costs a larger log, never a stalled ingest. `journal_size_limit`
/// (set on every connection) then truncates the rewound file, so its disk
/// space comes back.
///
/// What bounds the log, then, is the longest read transaction: every report
/// has a time limit (`ServerLimits.reportTimeLimitSeconds`), so the log holds
/// at most `restartBytes` plus that many seconds of commits.
struct WALCheckpointSchedule {
  /// Log size that triggers a restart: at a few thousand events a second
  /// that is about a minute of commits, so the wait is paid rarely, and it
  /// stays far below any disk a database of this size lives on.
  static let restartBytes = 64 << 20
  /// How long the writer waits for readers to leave the log. Reports take
  /// well under a second; one that is longer is not waited for.
  static let maxWaitMilliseconds: Int32 = 1000
  /// Pause after a restart that could not finish, doubling up to the
  /// maximum while reports keep outlasting the wait: each attempt costs
  /// ingest up to `maxWaitMilliseconds`.
  static let firstRetrySeconds = 5.0
  static let maxRetrySeconds = 60.0

  private var lastAttempt = Date.distantPast
  private var retrySeconds = firstRetrySeconds

  /// True when the log at `walBytes` should be restarted now.
  func isDue(walBytes: Int, now: Date) -> Bool {
    walBytes > Self.restartBytes && now.timeIntervalSince(lastAttempt) >= retrySeconds
  }

  mutating func attempted(at now: Date, restarted: Bool) {
    lastAttempt = now
    retrySeconds = restarted ? Self.firstRetrySeconds : min(Self.maxRetrySeconds, retrySeconds * 2)
  }
}
