import Foundation

/// Carries out a `WALCheckpointSchedule` for one write-ahead log: the
/// events file's, run by the batch writer, or the rollups file's, run by
/// the fold thread. Each writer rewinds the log it appends to; both close
/// the same `ReadGate`, which stays closed while either holds it.
struct LogRewinder {
  /// The log's size in bytes.
  let logBytes: () -> Int
  /// A PASSIVE checkpoint: the frames it left uncopied.
  let backfill: () throws(StoreError) -> Int32
  /// A RESTART checkpoint without waiting: whether it rewound the log.
  let restart: () throws(StoreError) -> Bool
  private var schedule: WALCheckpointSchedule
  private var logSize = LogSizeSample()

  init(
    maxHoldSeconds: Double, logBytes: @escaping () -> Int,
    backfill: @escaping () throws(StoreError) -> Int32,
    restart: @escaping () throws(StoreError) -> Bool
  ) {
    schedule = WALCheckpointSchedule(maxHoldSeconds: maxHoldSeconds)
    self.logBytes = logBytes
    self.backfill = backfill
    self.restart = restart
  }

  /// True while the writer should come back every
  /// `WALCheckpointSchedule.pollSeconds` even without work.
  var isPolling: Bool { schedule.isPolling }

  /// Rewinds a log that readers have kept growing, when it is due; see
  /// `WALCheckpointSchedule` for why and when. Best effort: a log that
  /// stays long costs disk space and read speed, never correctness.
  mutating func step(_ readGate: ReadGate) {
    let now = Date()
    let bytes = logSize.bytes(now: now, read: logBytes)
    var step = schedule.step(walBytes: bytes, now: now)
    if step == .backfill {
      // A failed backfill (disk full) leaves the frames to the restart.
      let left = (try? backfill()) ?? 0
      step = schedule.backfilled(framesLeft: left, now: Date())
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
    if (try? restart()) == true {
      schedule.restarted()
      readGate.open()
    }
  }

  /// Opens the gate if this rewinder holds it: for a writer that stops.
  mutating func release(_ readGate: ReadGate) {
    if schedule.isHoldingReaders {
      readGate.open()
      schedule.restarted()
    }
  }
}
