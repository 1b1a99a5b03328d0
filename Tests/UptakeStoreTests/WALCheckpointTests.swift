import Foundation
import Testing
import UptakeStore

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
}
