import Foundation
import UptakeCore
import UptakeStore

/// `uptake import`: loads NDJSON events, with ingest's validation and dedup.
struct ImportCommand: Command {
  static let path = ["import"]
  static let summary = "load NDJSON events from a file or stdin"
  static let help = """
    usage: uptake import --app APPID FILE|- [--db PATH]

    Reads one event per line, each a JSON object with the ingest fields
    (id, updateId, action, appVersion, installId, timestamp, osVersion,
    platform, previousAppVersion, test), from FILE or, with -, from stdin.
    Events are checked by the same rules as POST /v1/events, with the time
    of the import as the time received; a line that is not JSON or breaks a
    rule is rejected alone, and the first 10 rejections are shown on stderr
    as "line N: message". Blank lines are skipped. An event whose id is
    already stored for the app is counted as a duplicate and not stored
    again, so importing a file twice stores it once.

    Events are committed in transactions of 5000, so a running uptaked keeps
    storing its own events in between. When stderr is a terminal, progress is
    shown there. At the end one line goes to stdout:
      accepted N, duplicates N, rejected N

    options:
      --app APPID   the app the events belong to (required)
      --db PATH     SQLite file (env UPTAKE_DB, default ./uptake.db)

    exit codes: 0 done (also when lines were rejected), 64 usage, 65 unknown
    app, 66 database or FILE missing, 69 database busy or full, 74 read error.
    """

  /// Events per transaction: each commit costs one fsync, and a transaction
  /// holds the write lock the daemon's writer waits for, so this keeps both
  /// the fsyncs few and the daemon's wait short (about 20 ms a commit).
  static let eventsPerTransaction = 5000
  /// Rejections shown on stderr; the rest are only counted.
  static let shownRejections = 10
  /// WAL pages (4 KiB) after which the import's commits copy the WAL back
  /// into the database file. SQLite's 1000 makes a bulk load checkpoint
  /// every few transactions, rewriting the same index pages each time;
  /// 64 MiB cuts that work (measured: import 12% faster) and still bounds
  /// the WAL file.
  static let checkpointPages = 16384
  /// Events per fold. A fold rewrites every page of the install tables its
  /// events touch, and imported history touches pages all over them, so
  /// few large folds write far less than many small ones. A fold holds 40
  /// bytes an event (FoldBatch), so 2M events take about 120 MiB with the
  /// sort's buffer; against 500k-event folds, importing 2M events folded in
  /// 7.3 s instead of 9.0 s. With the funnel and dimension rollups (schema
  /// 0004, 0005) 4M-event folds and a 512 MiB cache import 10.4M events in
  /// 101.0 s instead of 106.1 s with 2M and 256 MiB; peak RSS 1.7 GB
  /// instead of 1.4 (mostly the mapped and cached database).
  static let foldStepEvents = 4_000_000
  /// Page cache of the import's connection. The fold reads and rewrites
  /// rows all over the install tables, which at millions of events outgrow
  /// the daemon's 32 MiB; a short-lived CLI process can afford 512 MiB.
  static let cacheKiB = 512 * 1024
  /// The same tables read through a memory map rather than a read() per
  /// page the cache misses.
  static let mmapBytes = 2 << 30
  /// Duplicate-index keys held in memory before a merge to disk. Each merge
  /// writes about every page of `dedup_blocks`, so the daemon's old 512k
  /// (chosen for its memory bar) made 20 merges of 10.4M imported events, 12.4 s
  /// of the import; 4M keys (~100 MiB here) make two, and the import merges
  /// the rest before it ends so the daemon starts with none in memory.
  static let dedupMergeKeys = 1 << 22

  let appId: String
  let inputPath: String
  let databasePath: String

  init(arguments: [String]) throws(CommandError) {
    let parsed = try Arguments(arguments, valueFlags: ["--db", "--app"], booleanFlags: [])
    appId = try ReportOptions.appId(parsed)
    guard parsed.positionals.count == 1 else {
      throw .usage("give exactly one FILE, or - for stdin")
    }
    inputPath = parsed.positionals[0]
    databasePath = parsed.databasePath
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    let database = try StoreAccess.open(databasePath)
    let app = try StoreAccess.app(appId, in: database)
    let preparer: FoldPreparer
    do {
      try database.execute("PRAGMA wal_autocheckpoint = \(Self.checkpointPages)")
      try database.execute("PRAGMA cache_size = -\(Self.cacheKiB)")
      try database.execute("PRAGMA mmap_size = \(Self.mmapBytes)")
      preparer = try FoldPreparer(path: databasePath)
    } catch {
      throw .store(error)
    }
    let descriptor = try openInput()
    let queue = ChunkQueue(capacity: 4)
    let reader = ImportReader(
      descriptor: descriptor, eventsPerChunk: Self.eventsPerTransaction,
      shownRejections: Self.shownRejections)
    let readerDone = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      reader.run(into: queue)
      readerDone.signal()
    }
    let totals: (stored: InsertOutcome, rejected: Int)
    do {
      totals = try store(
        queue, into: EventInserter(database: database, dedupMergeKeys: Self.dedupMergeKeys),
        preparer: preparer, app: app, &output)
    } catch {
      // The reader stops at its next chunk; the process is about to exit.
      queue.cancel()
      throw error
    }
    readerDone.wait()
    if descriptor != STDIN_FILENO { close(descriptor) }
    if totals.rejected > Self.shownRejections {
      output.standardError(
        "(\(totals.rejected - Self.shownRejections) more rejected lines not shown)\n")
    }
    output.standardOutput(
      "accepted \(totals.stored.accepted), duplicates \(totals.stored.duplicates), "
        + "rejected \(totals.rejected)\n")
  }

  /// Stores every chunk the reader hands over, one transaction each, then
  /// folds the new events into the report aggregates. A large backlog is
  /// folded on the way: `preparer` reads and sorts it on another core
  /// while chunks keep being stored, then it is written between two.
  private func store(
    _ queue: ChunkQueue, into inserter: EventInserter, preparer: FoldPreparer, app: AppRecord,
    _ output: inout CommandOutput
  ) throws(CommandError) -> (stored: InsertOutcome, rejected: Int) {
    var progress = ImportProgress(isTerminal: isatty(STDERR_FILENO) == 1)
    var stored = InsertOutcome()
    var rejected = 0
    var last = ImportChunk(receivedAtMs: 0)
    while let chunk = queue.take() {
      for message in chunk.rejections {
        progress.clear(&output)
        output.standardError(message + "\n")
      }
      rejected += chunk.rejected
      if let code = chunk.readError {
        progress.clear(&output)
        throw CommandError(
          message: "cannot read \(inputName) after line \(chunk.linesRead): "
            + "\(String(cString: strerror(code))); \(stored.accepted) events stored before",
          exitCode: ExitCode.ioError)
      }
      do {
        if !chunk.events.isEmpty {
          let outcome = try inserter.insert([
            EventBatch(appNo: app.appNo, events: chunk.events, receivedAtMs: chunk.receivedAtMs)
          ])[0]
          stored.accepted += outcome.accepted
          stored.duplicates += outcome.duplicates
        }
        // Upkeep between transactions, as the daemon's writer does under
        // load: the duplicate index merges to disk and a large backlog is
        // folded, so memory and report cost stay bounded however long the
        // input.
        if inserter.isMergingDuplicates {
          try inserter.performMaintenanceStep(mayFold: false, busy: true)
        } else if let prepared = preparer.takeIfReady() {
          try write(prepared, inserter)
        } else if !preparer.isBusy && inserter.unfoldedEvents >= Self.foldStepEvents {
          preparer.start(maxEvents: Self.foldStepEvents)
        }
      } catch {
        progress.clear(&output)
        throw .store(error)
      }
      progress.update(lines: chunk.linesRead, events: chunk.eventsRead, &output)
      last = chunk
    }
    progress.folding(lines: last.linesRead, events: last.eventsRead, &output)
    do {
      // The last fold is read and sorted on the preparer while this thread
      // merges the duplicate index.
      if let prepared = preparer.take() { try write(prepared, inserter) }
      preparer.start(maxEvents: Self.foldStepEvents)
      try inserter.mergeDuplicateKeys()
      if let prepared = preparer.take() { try write(prepared, inserter) }
      while try inserter.foldRollups(maxEvents: Self.foldStepEvents) > 0 {}
    } catch {
      progress.clear(&output)
      throw .store(error)
    }
    progress.finish(lines: last.linesRead, events: last.eventsRead, &output)
    return (stored, rejected)
  }

  /// Writes what the preparer handed over: a fold, nothing left to fold,
  /// or the error that stopped it.
  private func write(_ prepared: Result<PreparedFold?, StoreError>, _ inserter: EventInserter)
    throws(StoreError)
  {
    if let fold = try prepared.get() { try inserter.foldRollups(fold) }
  }

  private var inputName: String { inputPath == "-" ? "stdin" : inputPath }

  /// The input's file descriptor; 66 when FILE is missing or unreadable.
  private func openInput() throws(CommandError) -> Int32 {
    guard inputPath != "-" else { return STDIN_FILENO }
    let descriptor = open(inputPath, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw CommandError(
        message: "cannot open \(inputPath): \(String(cString: strerror(errno)))",
        exitCode: ExitCode.noInput)
    }
    var status = stat()
    if fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
      close(descriptor)
      throw CommandError(message: "\(inputPath) is a directory", exitCode: ExitCode.noInput)
    }
    // Read once, front to back: let the kernel read ahead generously.
    _ = posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
    return descriptor
  }
}
