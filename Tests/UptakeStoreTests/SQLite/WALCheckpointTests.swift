import Foundation
import Testing
import UptakeTestSupport

@testable import UptakeStore

@Suite("Write-ahead log: backfilled beside readers, rewound once they leave, cut back after")
struct WALCheckpointTests {
  @Test("a reader keeps the log growing; a restart fails at once, then works once it leaves")
  func emptyAfterReaderLeaves() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let writer = try Database(path: scratch.databasePath)
    try writer.execute("CREATE TABLE filler (b BLOB)")
    let reader = try Database(path: scratch.databasePath)
    try reader.execute("BEGIN")
    _ = try reader.scalarInt("SELECT count(*) FROM filler")

    for _ in 0..<24 {
      try writer.execute("INSERT INTO filler VALUES (zeroblob(1048576))")
    }
    let grown = writer.walBytes
    let started = Date()
    let whileReading = try writer.restartWriteAheadLog()
    let waited = Date().timeIntervalSince(started)
    try reader.execute("COMMIT")
    let afterReading = try writer.restartWriteAheadLog()

    #expect(grown > 24 << 20, "the reader's snapshot kept the log from rewinding")
    #expect(!whileReading && waited < 1, "a reader in the log makes it fail without waiting")
    #expect(afterReading)
    // Rewound: the next commit writes from the start and cuts the file.
    try writer.execute("INSERT INTO filler VALUES (1)")
    #expect(writer.walBytes <= 16 << 20)
    #expect(try writer.scalarInt("SELECT count(*) FROM filler") == 25)
  }

  @Test("an ordinary rewind cuts the file back to 16 MiB (journal_size_limit)")
  func rewindCutsBack() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let writer = try Database(path: scratch.databasePath)
    try writer.execute("CREATE TABLE filler (b BLOB)")
    try writer.write { () throws(StoreError) in
      for _ in 0..<24 { try writer.execute("INSERT INTO filler VALUES (zeroblob(1048576))") }
    }
    let grown = writer.walBytes
    try writer.execute("INSERT INTO filler VALUES (1)")

    #expect(grown > 24 << 20)
    #expect(writer.walBytes <= 16 << 20)
  }

  @Test("past 64 MiB: backfill until few frames are left, hold readers, poll, restart; give up")
  func schedule() {
    var schedule = WALCheckpointSchedule(maxHoldSeconds: 35)
    let start = Date(timeIntervalSince1970: 1000)
    let large = WALCheckpointSchedule.restartBytes + 1
    let poll = WALCheckpointSchedule.pollSeconds
    func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    #expect(schedule.step(walBytes: WALCheckpointSchedule.restartBytes, now: start) == .nothing)
    #expect(schedule.step(walBytes: large, now: start) == .backfill)
    // Readers of old snapshots still need thousands of frames: no gate yet.
    #expect(schedule.backfilled(framesLeft: 3000, now: start) == .nothing)
    #expect(schedule.isPolling && !schedule.isHoldingReaders)
    #expect(schedule.step(walBytes: large, now: at(poll / 2)) == .nothing)
    #expect(schedule.step(walBytes: large, now: at(poll * 1.5)) == .backfill)
    #expect(
      schedule.backfilled(framesLeft: WALCheckpointSchedule.backfilledFrames, now: at(poll * 1.5))
        == .holdReaders)
    #expect(schedule.isHoldingReaders)
    #expect(schedule.step(walBytes: large, now: at(poll * 2)) == .nothing)
    #expect(schedule.step(walBytes: large, now: at(poll * 3)) == .tryRestart)
    schedule.restarted()
    #expect(!schedule.isPolling)
    // Rewound, the file keeps its length until a commit cuts it back.
    #expect(schedule.step(walBytes: large, now: at(0.5)) == .nothing)
    #expect(schedule.step(walBytes: 16 << 20, now: at(0.6)) == .nothing)

    // A backfill that never gets there closes the gate anyway, and a hold
    // that never restarts gives up and waits before the next try.
    let backfill = WALCheckpointSchedule.maxBackfillSeconds
    #expect(schedule.step(walBytes: large, now: at(1)) == .backfill)
    #expect(schedule.step(walBytes: large, now: at(1 + backfill)) == .holdReaders)
    #expect(schedule.step(walBytes: large, now: at(1 + backfill + 35)) == .giveUp)
    #expect(schedule.step(walBytes: large, now: at(1 + backfill + 94)) == .nothing)
    #expect(schedule.step(walBytes: large, now: at(1 + backfill + 95)) == .backfill)
  }

  @Test("a backfill copies what no reader needs and reports the frames a reader still holds")
  func backfillAroundReader() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let writer = try Database(path: scratch.databasePath)
    try writer.execute("CREATE TABLE filler (b BLOB)")
    try writer.execute("INSERT INTO filler VALUES (zeroblob(1048576))")
    let reader = try Database(path: scratch.databasePath)
    try reader.execute("BEGIN")
    _ = try reader.scalarInt("SELECT count(*) FROM filler")
    try writer.write { () throws(StoreError) in
      for _ in 0..<8 { try writer.execute("INSERT INTO filler VALUES (zeroblob(1048576))") }
    }

    let whileReading = try writer.backfillWriteAheadLog()
    try reader.execute("COMMIT")
    let afterReading = try writer.backfillWriteAheadLog()

    let pageSize = try #require(try writer.scalarInt("PRAGMA page_size"))
    #expect(
      Int64(whileReading) >= 8 * (1 << 20) / pageSize,
      "the 8 MiB written after the reader's snapshot stay")
    #expect(afterReading == 0)
    #expect(try writer.restartWriteAheadLog())
  }

  @Test("a closed gate holds new readers back until it opens; readers inside are counted")
  func readGate() throws {
    let gate = ReadGate()
    gate.enter()
    gate.close()
    let entered = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      gate.enter()
      entered.signal()
      gate.leave()
    }

    let heldBack = entered.wait(timeout: .now() + 0.2) == .timedOut
    let inside = gate.activeReaders
    gate.leave()
    gate.open()
    let admitted = entered.wait(timeout: .now() + 5) == .success

    #expect(heldBack)
    #expect(inside == 1)
    #expect(admitted)
  }

  @Test("a time limit stops a long query with SQLITE_INTERRUPT; the connection works after")
  func timeLimit() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try Database(path: scratch.databasePath)
    let endless =
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    let started = Date()

    var interrupted = false
    do {
      _ = try database.withTimeLimit(seconds: 0.1) { () throws(StoreError) in
        try database.read { () throws(StoreError) in try database.scalarInt(endless) }
      }
    } catch {
      interrupted = error.isInterrupted
    }

    #expect(interrupted)
    #expect(Date().timeIntervalSince(started) < 2)
    #expect(try database.scalarInt("SELECT 42") == 42)
  }
}

@Suite("The log's size, read at most every interval")
struct LogSizeSampleTests {
  @Test("a read within the interval answers the last size; one after it reads again")
  func readsAtMostEveryInterval() {
    var sample = LogSizeSample()
    var reads = 0
    var size = 100
    let start = Date(timeIntervalSince1970: 1_000_000)
    func bytes(after seconds: Double) -> Int {
      sample.bytes(now: start.addingTimeInterval(seconds)) {
        reads += 1
        return size
      }
    }
    #expect(bytes(after: 0) == 100)
    size = 200
    #expect(bytes(after: LogSizeSample.interval / 2) == 100)
    #expect(reads == 1)
    #expect(bytes(after: LogSizeSample.interval * 1.01) == 200)
    #expect(reads == 2)
  }
}
