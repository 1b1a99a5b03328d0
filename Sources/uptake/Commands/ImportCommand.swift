import Foundation
import UptakeCluster
import UptakeCore
import UptakeStore

/// `uptake import`: loads NDJSON events, with ingest's validation and dedup.
struct ImportCommand: Command {
  static let path = ["import"]
  static let summary = "load NDJSON events from a file or stdin"
  static let help = """
    usage: uptake import --app APPID FILE|- [--db PATH | --clickhouse URL[,URL...]]
                         [--max-distinct-per-day N]

    Reads one event per line, each a JSON object with the ingest fields
    (id, updateId, action, appVersion, installId, timestamp, osVersion,
    platform, previousAppVersion, test), from FILE or, with -, from stdin.
    Events are checked by the same rules as POST /v1/events, with the time
    of the import as the time received; a line that is not JSON or breaks a
    rule is rejected alone, and the first 10 rejections are shown on stderr
    as "line N: message". Blank lines are skipped. An event whose id is
    already stored for the app is counted as a duplicate and not stored
    again, so importing a file twice stores it once. As in ingest, an event
    that would give the app more than --max-distinct-per-day distinct
    updateId, appVersion or osVersion values (each) on the UTC day of its
    timestamp is rejected; the events already stored count.

    Events are committed in transactions of 5000, so a running uptaked keeps
    storing its own events in between. When stderr is a terminal, progress is
    shown there. At the end one line goes to stdout:
      accepted N, duplicates N, rejected N

    With --clickhouse the events go into the cluster of uptaked nodes: they
    are checked and their duplicates dropped in a scratch database first (in
    TMPDIR, removed at the end), then shipped in blocks of 50000; an event
    whose id the cluster holds already counts as a duplicate, so a file
    imported twice, or again after an interrupted import, is stored once.
    --max-distinct-per-day counts this import's own events only.

    options:
      --app APPID   the app the events belong to (required)
      --db PATH     SQLite file (env UPTAKE_DB, default ./uptake.db)
      --max-distinct-per-day N
                    the limit above; give the daemon's when it has one
                    (default 1000; 0 means the default; at most 1000000)
    """ + ClusterArguments.help + """

      exit codes: 0 done (also when lines were rejected), 64 usage, 65 unknown
      app, 66 database or FILE missing, 69 database busy or full, or the
      cluster unreachable, 74 read error.
      """

  /// Rejections shown on stderr; the rest are only counted.
  static let shownRejections = 10

  let input: AppInputArguments
  let maxDistinctPerDay: Int
  let cluster: ClusterLayout?

  init(arguments: [String]) throws(CommandError) {
    input = try AppInputArguments(
      arguments, extraValueFlags: Set(["--max-distinct-per-day"]).union(ClusterArguments.valueFlags)
    )
    cluster = try ClusterArguments.layout(input.parsed)
    if cluster != nil && input.parsed.value("--db") != nil {
      throw .usage("give --db or --clickhouse, not both")
    }
    guard let text = input.parsed.value("--max-distinct-per-day") else {
      maxDistinctPerDay = BatchWriter.Limits.bulkImport.maxDistinctPerDay
      return
    }
    guard let given = Int(text), let limit = EventInserter.maxDistinctPerDay(flag: given) else {
      throw .usage(
        "--max-distinct-per-day needs a whole number up to "
          + "\(EventInserter.highestMaxDistinctPerDay), not \"\(text)\"")
    }
    maxDistinctPerDay = limit
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    var limits = BatchWriter.Limits.bulkImport
    limits.maxDistinctPerDay = maxDistinctPerDay
    guard let cluster else {
      let database = try StoreAccess.open(input.databasePath)
      let app = try StoreAccess.app(input.appId, in: database)
      let totals = try importLines(into: database, app: app, limits: limits, &output)
      report(totals.stored, rejected: totals.rejected, shown: totals.shown, &output)
      return
    }
    let spool = try ScratchSpool(cluster: try ClusterArguments.ready(cluster), appId: input.appId)
    defer { spool.remove() }
    // A spool does not fold: the cluster keeps the reports' aggregates.
    limits.folds = false
    let totals = try importLines(into: spool.database, app: spool.app, limits: limits, &output)
    let shipped = try spool.ship(&output)
    let stored = InsertOutcome(
      accepted: Int(shipped.shipped),
      duplicates: totals.stored.duplicates + Int(shipped.present))
    report(stored, rejected: totals.rejected, shown: totals.shown, &output)
  }

  /// Reads the input's lines and stores their events in `database` for
  /// `app`, through a writer of its own that is gone, and the database
  /// closed, when this returns.
  private func importLines(
    into database: Database, app: AppRecord, limits: BatchWriter.Limits,
    _ output: inout CommandOutput
  ) throws(CommandError) -> (stored: InsertOutcome, rejected: Int, shown: Int) {
    // The daemon's writer and fold thread, tuned for one bulk load. It
    // keeps syncing the rollups file: a daemon may be writing it too.
    var writer: BatchWriter?
    do {
      writer = try BatchWriter(database: database, limits: limits, foldsUnsynced: false)
    } catch {
      throw .store(error)
    }
    writer!.start()
    let descriptor = try openInput()
    let queue = ChunkQueue(capacity: 4)
    let reader = ImportReader(
      descriptor: descriptor,
      eventsPerChunk: writer!.limits.maxEventsPerTransaction,
      shownRejections: Self.shownRejections)
    let readerDone = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      reader.run(into: queue)
      readerDone.signal()
    }
    let totals: (stored: InsertOutcome, rejected: Int, shown: Int)
    do {
      totals = try store(queue, into: writer!, app: app, &output)
    } catch {
      // The reader stops at its next chunk; the process is about to exit.
      queue.cancel()
      writer!.stop()
      throw error
    }
    readerDone.wait()
    Self.closeOnceGone(database, writer: &writer)
    if descriptor != STDIN_FILENO { close(descriptor) }
    return totals
  }

  /// The closing lines: the rejections not shown, and the counts.
  private func report(
    _ stored: InsertOutcome, rejected: Int, shown: Int, _ output: inout CommandOutput
  ) {
    if rejected > shown {
      output.standardError("(\(rejected - shown) more rejected lines not shown)\n")
    }
    output.standardOutput(
      "accepted \(stored.accepted), duplicates \(stored.duplicates), rejected \(rejected)\n")
  }

  /// Closes the connection once the finished `writer` is gone. Its thread
  /// lets go of it a moment after finishing, and until then its statements
  /// keep the connection open: a process exiting first leaves the log files
  /// behind, for the next opening to clean up (a 10M-event import did).
  private static func closeOnceGone(_ database: Database, writer: inout BatchWriter?) {
    weak let finished = writer
    writer = nil
    let deadline = Date().addingTimeInterval(5)
    while finished != nil && Date() < deadline { usleep(1_000) }
    database.close()
  }

  /// Stores every chunk the reader hands over through `writer`, one
  /// transaction each, while its fold thread folds the backlog beside;
  /// then finishes the writer, which folds the rest.
  private func store(
    _ queue: ChunkQueue, into writer: BatchWriter, app: AppRecord, _ output: inout CommandOutput
  ) throws(CommandError) -> (stored: InsertOutcome, rejected: Int, shown: Int) {
    var progress = ImportProgress(isTerminal: isatty(STDERR_FILENO) == 1)
    var stored = InsertOutcome()
    var rejected = 0
    var shown = 0
    var last = ImportChunk(receivedAtMs: 0)
    while let chunk = queue.take() {
      // The reader's rejections and the store's, shown in line order.
      var rejections = chunk.rejections
      rejected += chunk.rejected
      if let code = chunk.readError {
        show(rejections, shown: &shown, &progress, &output)
        progress.clear(&output)
        throw CommandError(
          message: "cannot read \(input.inputName) after line \(chunk.linesRead): "
            + "\(String(cString: strerror(code))); \(stored.accepted) events stored before",
          exitCode: ExitCode.ioError)
      }
      if !chunk.events.isEmpty {
        let batch = EventBatch(
          appNo: app.appNo, events: chunk.events, receivedAtMs: chunk.receivedAtMs)
        switch writer.storeAndWait(batch) {
        case .success(let outcome):
          stored.accepted += outcome.accepted
          stored.duplicates += outcome.duplicates
          rejected += outcome.rejected.count
          rejections += outcome.rejected.map {
            LineRejection(line: chunk.eventLines[$0.index], message: $0.error)
          }
        case .failure(let failure):
          show(rejections, shown: &shown, &progress, &output)
          progress.clear(&output)
          throw .ingest(failure)
        }
      }
      show(rejections, shown: &shown, &progress, &output)
      progress.update(lines: chunk.linesRead, events: chunk.eventsRead, &output)
      last = chunk
    }
    progress.folding(lines: last.linesRead, events: last.eventsRead, &output)
    do {
      try writer.finish()
    } catch {
      progress.clear(&output)
      throw .store(error)
    }
    progress.finish(lines: last.linesRead, events: last.eventsRead, &output)
    return (stored, rejected, shown)
  }

  /// Shows `rejections` on stderr in line order while fewer than
  /// `shownRejections` have been shown.
  private func show(
    _ rejections: [LineRejection], shown: inout Int, _ progress: inout ImportProgress,
    _ output: inout CommandOutput
  ) {
    for rejection in rejections.sorted(by: { $0.line < $1.line })
    where shown < Self.shownRejections {
      progress.clear(&output)
      output.standardError(rejection.text + "\n")
      shown += 1
    }
  }

  /// The input's file descriptor; 66 when FILE is missing or unreadable.
  private func openInput() throws(CommandError) -> Int32 {
    guard input.inputPath != "-" else { return STDIN_FILENO }
    let descriptor = open(input.inputPath, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw CommandError(
        message: "cannot open \(input.inputPath): \(String(cString: strerror(errno)))",
        exitCode: ExitCode.noInput)
    }
    var status = stat()
    if fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
      close(descriptor)
      throw CommandError(message: "\(input.inputPath) is a directory", exitCode: ExitCode.noInput)
    }
    // Read once, front to back: let the kernel read ahead generously.
    _ = posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
    return descriptor
  }
}
