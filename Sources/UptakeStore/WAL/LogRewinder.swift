import Foundation

/// The one owner of a write-ahead log's upkeep: it carries out a
/// `WALCheckpointSchedule` while its writer runs and leaves the log copied
/// in and truncated when the writer stops. There is one for each log: the
/// events file's, run by the batch writer, and the rollups file's, run by
/// the fold thread. Each writer rewinds the log it appends to; both close
/// the same `ReadGate`, which stays closed while either holds it.
struct LogRewinder {
  /// The writer's connection; the rewinder runs on the writer's thread.
  private let database: Database
  /// `main` for the events file, `rollups` for the aggregates'.
  private let schema: String
  /// The file whose log this is, its size read with a `stat`
  /// (`LogSizeSample`).
  private let filePath: String
  private var schedule: WALCheckpointSchedule
  private var logSize = LogSizeSample()

  init(_ database: Database, schema: String, maxHoldSeconds: Double) {
    self.database = database
    self.schema = schema
    filePath = schema == "main" ? database.path : Database.rollupsPath(for: database.path)
    schedule = WALCheckpointSchedule(maxHoldSeconds: maxHoldSeconds)
  }

  /// True while the writer should come back every
  /// `WALCheckpointSchedule.pollSeconds` even without work.
  var isPolling: Bool { schedule.isPolling }

  /// Rewinds a log that readers have kept growing, when it is due; see
  /// `WALCheckpointSchedule` for why and when. Best effort: a log that
  /// stays long costs disk space and read speed, never correctness.
  mutating func step(_ readGate: ReadGate) {
    let now = Date()
    let path = filePath
    let bytes = logSize.bytes(now: now) { Database.walBytes(ofDatabaseAt: path) }
    var step = schedule.step(walBytes: bytes, now: now)
    if step == .backfill {
      // A failed backfill (disk full) leaves the frames to the restart.
      let left = (try? database.backfillWriteAheadLog(schema: schema)) ?? 0
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
    if (try? database.restartWriteAheadLog(schema: schema)) == true {
      schedule.restarted()
      readGate.open()
    }
  }

  /// For a writer that stops: opens the gate if this rewinder holds it,
  /// then copies the whole log into its file and truncates it, so one
  /// self-contained file is left behind. Returns whether the log is gone;
  /// a failure is thrown to be logged, as the log is just as durable.
  mutating func finish(_ readGate: ReadGate) throws(StoreError) -> Bool {
    if schedule.isHoldingReaders {
      readGate.open()
      schedule.restarted()
    }
    return try database.truncateWriteAheadLog(schema: schema)
  }
}
