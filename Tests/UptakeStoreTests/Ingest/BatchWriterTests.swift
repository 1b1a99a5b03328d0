import Foundation
import Synchronization
import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

@Suite("BatchWriter: group commit, answered once, drained at stop")
struct BatchWriterTests {
  @Test("batches submitted from many threads are each answered once, with their own counts")
  func concurrentSubmitters() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let writer = try BatchWriter(database: database)
    startWriterThread(writer)
    let jobs = 64
    let answers = Answers()

    // Each job: 8 ids of its own, 2 of them sent twice, and one id every
    // job sends, which exactly one job gets stored.
    DispatchQueue.concurrentPerform(iterations: jobs) { job in
      let ids = (0..<10).map { "job\(job)-\($0 % 8)" } + ["shared"]
      let queued = writer.submit(batch(app, events(ids: ids))) { answers.record(job, $0) }
      #expect(queued)
    }
    answers.waitFor(jobs)
    writer.stop()

    let outcomes = try answers.outcomes(jobs: jobs)
    #expect(outcomes.allSatisfy { $0.accepted + $0.duplicates == 11 })
    #expect(outcomes.filter { $0 == InsertOutcome(accepted: 9, duplicates: 2) }.count == 1)
    #expect(outcomes.filter { $0 == InsertOutcome(accepted: 8, duplicates: 3) }.count == jobs - 1)
    #expect(try database.storedEventCount() == Int64(jobs * 8 + 1))
  }

  @Test("stop() answers every queued batch before it returns")
  func stopDrainsTheQueue() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let writer = try BatchWriter(database: database)
    let answers = Answers()
    for job in 0..<20 {
      let queued = writer.submit(batch(app, events(ids: ["a\(job)", "b\(job)"]))) {
        answers.record(job, $0)
      }
      #expect(queued)
    }
    #expect(writer.queueDepth == 40)

    startWriterThread(writer)
    writer.stop()

    #expect(answers.count == 20)
    #expect(try answers.outcomes(jobs: 20).allSatisfy { $0 == InsertOutcome(accepted: 2) })
    #expect(writer.queueDepth == 0)
    #expect(try database.storedEventCount() == 40)
  }

  @Test("after stop(), submit refuses and never calls the completion")
  func submitAfterStopIsRefused() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let writer = try BatchWriter(database: database)
    startWriterThread(writer)
    writer.stop()
    let answers = Answers()

    let queued = writer.submit(batch(app, events(ids: ["late"]))) { answers.record(0, $0) }

    #expect(!queued)
    #expect(!writer.isAcceptingWrites)
    Thread.sleep(forTimeInterval: 0.05)
    #expect(answers.count == 0)
    #expect(try database.storedEventCount() == 0)
  }

  @Test(
    "a batch that would overfill the queue, or its app's half of it, is refused; smaller ones fit"
  )
  func queueLimit() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let (shop, game) = (try database.addApp("shop"), try database.addApp("game"))
    var limits = BatchWriter.Limits()
    limits.maxQueuedEvents = 10
    let writer = try BatchWriter(database: database, limits: limits)
    let answers = Answers()
    func submit(_ job: Int, _ app: Int64, _ count: Int) -> Bool {
      let ids = (0..<count).map { "job\(job)-\($0)" }
      return writer.submit(batch(app, events(ids: ids))) { answers.record(job, $0) }
    }

    #expect(submit(0, shop, 3))
    #expect(!submit(1, shop, 3), "past the shop's half of the queue")
    #expect(submit(2, shop, 2))
    #expect(!submit(3, game, 6), "past the whole queue")
    #expect(submit(4, game, 5))
    #expect(!submit(5, game, 1))
    #expect(writer.queueDepth == 10)

    startWriterThread(writer)
    writer.stop()
    #expect(answers.count == 3)
    #expect(try database.storedEventCount() == 10)
  }

  @Test("a failed commit answers every batch in it with .unavailable, until storage recovers")
  func failedCommit() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    // A megabyte that another connection frees later, giving the "disk"
    // room again: once the writer runs, its connection is the writer's
    // alone (a connection serves one thread at a time, and the writer
    // does upkeep on it whenever it likes), so the test reads and writes
    // through a second one.
    try database.execute("CREATE TABLE spare(bytes BLOB)")
    try database.execute("INSERT INTO spare VALUES (zeroblob(1048576))")
    let pages = try #require(try database.scalarInt("PRAGMA page_count"))
    // The disk is "full": the file may not grow by a single page.
    try database.execute("PRAGMA max_page_count = \(pages)")
    let writer = try BatchWriter(database: database)
    #expect(writer.isAcceptingWrites)
    let failing = Answers()
    // Queued before the writer runs, so all three share one transaction.
    for job in 0..<3 {
      let ids = (0..<200).map { "job\(job)-\($0)" }
      #expect(writer.submit(batch(app, events(ids: ids))) { failing.record(job, $0) })
    }

    startWriterThread(writer)
    defer { writer.stop() }
    failing.waitFor(3)

    let other = try Database(path: scratch.databasePath)
    #expect(failing.unavailableCount == 3)
    #expect(failing.count == 3)
    #expect(!writer.isAcceptingWrites)
    #expect(try other.storedEventCount() == 0)

    // Freed pages are reused before the file grows.
    try other.execute("DELETE FROM spare")
    let recovered = Answers()
    #expect(writer.submit(batch(app, events(ids: ["after"]))) { recovered.record(0, $0) })
    recovered.waitFor(1)

    #expect(try recovered.outcomes(jobs: 1) == [InsertOutcome(accepted: 1)])
    #expect(writer.isAcceptingWrites)
    #expect(try other.storedEventCount() == 1)
  }
}

/// Runs the writer loop on a thread of its own, as the daemon does.
extension BatchWriterTests {
  @Test("the fold thread folds what is stored once ingest pauses, into the rollups file")
  func foldsWhenIdle() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let writer = try BatchWriter(database: database)
    startWriterThread(writer)
    let answers = Answers()
    for job in 0..<5 {
      let ids = (0..<100).map { "job\(job)-\($0)" }
      #expect(writer.submit(batch(app, events(ids: ids))) { answers.record(job, $0) })
    }
    answers.waitFor(5)
    // Idle for 0.2 s, the fold takes all 500; give it a few seconds.
    let deadline = Date().addingTimeInterval(5)
    while writer.unfoldedEvents > 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    #expect(writer.unfoldedEvents == 0)
    writer.stop()
    let reader = try Database(path: scratch.databasePath)
    #expect(try reader.read { () throws(StoreError) in try RollupFolder.foldedSeq(reader) } == 500)
    #expect(try reader.scalarInt("SELECT sum(events) FROM rollups.daily_counts") == 500)
  }

  @Test(
    "the fold writes the rollups file unsynced, recorded; a clean stop syncs it and clears that")
  func unsyncedRollupsRecorded() throws {
    let boot = try #require(UnsyncedRollups.currentBoot, "Linux has a boot id")
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let record = "SELECT value FROM store_state WHERE name = '\(UnsyncedRollups.stateName)'"
    #expect(try database.scalarInt(record) == nil)
    let writer = try BatchWriter(database: database)
    let reader = try Database(path: scratch.databasePath)
    #expect(try reader.scalarInt(record) == boot, "recorded before the fold writes")
    startWriterThread(writer)
    let answers = Answers()
    #expect(
      writer.submit(batch(app, events(ids: (0..<100).map { "i\($0)" }))) { answers.record(0, $0) })
    answers.waitFor(1)
    let deadline = Date().addingTimeInterval(5)
    while writer.unfoldedEvents > 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    #expect(writer.unfoldedEvents == 0)
    writer.stop()
    #expect(try reader.scalarInt(record) == nil)
    #expect(Database.walBytes(ofDatabaseAt: Database.rollupsPath(for: scratch.databasePath)) == 0)
    #expect(try reader.scalarInt("SELECT sum(events) FROM rollups.daily_counts") == 100)
  }

  @Test("past the backlog cap the writer waits for the fold thread; no answer is lost")
  func waitsForTheFoldPastTheCap() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    var limits = BatchWriter.Limits()
    limits.maxUnfoldedEvents = 300
    let writer = try BatchWriter(database: database, limits: limits)
    startWriterThread(writer)
    let answers = Answers()
    var mostUnfolded: Int64 = 0
    for job in 0..<30 {
      let ids = (0..<100).map { "job\(job)-\($0)" }
      #expect(writer.submit(batch(app, events(ids: ids))) { answers.record(job, $0) })
      answers.waitFor(1)
      mostUnfolded = max(mostUnfolded, writer.unfoldedEvents)
    }
    writer.stop()
    // A batch is taken while at most 300 wait for the fold, and adds 100.
    #expect(mostUnfolded <= 400, "\(mostUnfolded) unfolded at most")
    #expect(mostUnfolded > 0, "ingest ran ahead of the fold at times")
    #expect(try answers.outcomes(jobs: 30).allSatisfy { $0.accepted == 100 })
    #expect(try database.storedEventCount() == 3_000)
  }
}

private func startWriterThread(_ writer: BatchWriter) {
  writer.start()
}

/// The answers a batch writer gave, by job number, counting every call.
private final class Answers: Sendable {
  private let results = Mutex<[Int: [Result<InsertOutcome, IngestFailure>]]>([:])
  private let arrived = DispatchSemaphore(value: 0)

  func record(_ job: Int, _ result: Result<InsertOutcome, IngestFailure>) {
    results.withLock { $0[job, default: []].append(result) }
    arrived.signal()
  }

  /// Waits for `count` answers, at most ten seconds in all.
  func waitFor(_ count: Int) {
    let deadline = DispatchTime.now() + 10
    for _ in 0..<count where arrived.wait(timeout: deadline) == .timedOut {
      Issue.record("timed out waiting for \(count) answers")
      return
    }
  }

  /// Answers received, counting a second call for the same job.
  var count: Int { results.withLock { $0.values.map(\.count).reduce(0, +) } }

  /// Jobs answered with `.unavailable`.
  var unavailableCount: Int {
    results.withLock { results in
      results.values.flatMap { $0 }.filter {
        if case .failure(.unavailable) = $0 { return true }
        return false
      }.count
    }
  }

  /// The outcome of every job 0..<jobs, each answered exactly once.
  func outcomes(jobs: Int) throws -> [InsertOutcome] {
    let snapshot = results.withLock { $0 }
    #expect(snapshot.count == jobs, "every job answered")
    #expect(snapshot.values.allSatisfy { $0.count == 1 }, "no job answered twice")
    return try (0..<jobs).map { job in
      let answer = try #require(snapshot[job]?.first, "job \(job) answered")
      return try answer.get()
    }
  }
}

@Suite("BatchWriter: a writer that never ran")
struct BatchWriterNeverRunTests {
  @Test("stop() returns at once when start() was never called")
  func stopWithoutRun() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let writer = try BatchWriter(database: try scratch.openDatabase())
    let returned = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      writer.stop()
      returned.signal()
    }
    #expect(
      returned.wait(timeout: .now() + 5) == .success, "stop() waited for a writer that never ran")
    #expect(!writer.isAcceptingWrites)
  }
}
