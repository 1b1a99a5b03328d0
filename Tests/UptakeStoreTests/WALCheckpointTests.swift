import Foundation
import Testing

@testable import UptakeStore

@Suite("Write-ahead log restart while a reader holds a snapshot")
struct WALCheckpointTests {
  @Test("a reader keeps the log growing; restart waits for it, then the log is cut back")
  func restartAfterReaderLeaves() throws {
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
    let whileReading = try writer.restartWriteAheadLog(maxWaitMilliseconds: 200)
    let waited = Date().timeIntervalSince(started)
    try reader.execute("COMMIT")
    let afterReading = try writer.restartWriteAheadLog(maxWaitMilliseconds: 200)
    try writer.execute("INSERT INTO filler VALUES (1)")

    #expect(grown > 24 << 20, "the reader's snapshot kept the log from rewinding")
    #expect(!whileReading, "a reader in the log outlasts the wait")
    #expect(waited >= 0.15 && waited < 2, "it waited about 200 ms, not \(waited) s")
    #expect(afterReading)
    #expect(writer.walBytes <= 16 << 20, "the rewound log is cut back to 16 MiB")
  }

  @Test("restarts are tried past 64 MiB, backing off from 5 s to 60 s while they fail")
  func schedule() {
    var schedule = WALCheckpointSchedule()
    let start = Date(timeIntervalSince1970: 1000)
    let large = WALCheckpointSchedule.restartBytes + 1

    #expect(!schedule.isDue(walBytes: WALCheckpointSchedule.restartBytes, now: start))
    #expect(schedule.isDue(walBytes: large, now: start))
    schedule.attempted(at: start, restarted: false)
    #expect(!schedule.isDue(walBytes: large, now: start.addingTimeInterval(9)))
    #expect(schedule.isDue(walBytes: large, now: start.addingTimeInterval(10)))
    for _ in 0..<5 { schedule.attempted(at: start, restarted: false) }
    #expect(!schedule.isDue(walBytes: large, now: start.addingTimeInterval(59)))
    #expect(schedule.isDue(walBytes: large, now: start.addingTimeInterval(60)))
    schedule.attempted(at: start, restarted: true)
    #expect(schedule.isDue(walBytes: large, now: start.addingTimeInterval(5)))
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
