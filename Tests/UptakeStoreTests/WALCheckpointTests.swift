import Foundation
import Testing

@testable import UptakeStore

@Suite("Write-ahead log: emptied once readers leave, cut back after a rewind")
struct WALCheckpointTests {
  @Test("a reader keeps the log growing; emptying it fails at once, then works once it leaves")
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
    let whileReading = try writer.emptyWriteAheadLog()
    let waited = Date().timeIntervalSince(started)
    try reader.execute("COMMIT")
    let afterReading = try writer.emptyWriteAheadLog()

    #expect(grown > 24 << 20, "the reader's snapshot kept the log from rewinding")
    #expect(!whileReading && waited < 1, "a reader in the log makes it fail without waiting")
    #expect(afterReading)
    #expect(writer.walBytes == 0)
    #expect(try writer.scalarInt("SELECT count(*) FROM filler") == 24)
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

  @Test("past 64 MiB: hold readers, check every poll interval, restart; give up after the hold")
  func schedule() {
    var schedule = WALCheckpointSchedule(maxHoldSeconds: 35)
    let start = Date(timeIntervalSince1970: 1000)
    let large = WALCheckpointSchedule.restartBytes + 1

    #expect(schedule.step(walBytes: WALCheckpointSchedule.restartBytes, now: start) == .nothing)
    #expect(schedule.step(walBytes: large, now: start) == .holdReaders)
    let poll = WALCheckpointSchedule.pollSeconds
    #expect(schedule.step(walBytes: large, now: start.addingTimeInterval(poll / 2)) == .nothing)
    let afterPoll = start.addingTimeInterval(poll * 1.5)
    #expect(schedule.step(walBytes: large, now: afterPoll) == .tryRestart)
    schedule.restarted()
    #expect(!schedule.isHoldingReaders)
    #expect(schedule.step(walBytes: large, now: start.addingTimeInterval(1)) == .holdReaders)
    #expect(schedule.step(walBytes: large, now: start.addingTimeInterval(36)) == .giveUp)
    #expect(schedule.step(walBytes: large, now: start.addingTimeInterval(95)) == .nothing)
    #expect(schedule.step(walBytes: large, now: start.addingTimeInterval(96)) == .holdReaders)
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
