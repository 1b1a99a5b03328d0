import Testing
import UptakeTestSupport

@testable import UptakeStore

@Suite("The automatic checkpoint's threshold is set in bytes, whatever the page size")
struct AutoCheckpointTests {
  @Test("64 MiB on a file of 16 KiB pages is 4,096 pages, not the 16,384 of 4 KiB pages")
  func pagesFromTheFilesPageSize() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    try database.autoCheckpoint(afterBytes: 64 << 20)
    #expect(try database.scalarInt("PRAGMA main.page_size") == 16_384)
    #expect(try database.scalarInt("PRAGMA main.wal_autocheckpoint") == 4_096)
  }

  @Test("an import's writer checkpoints its log at 64 MiB; the daemon's keeps SQLite's count")
  func writersThresholds() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let importing = try scratch.openDatabase()
    _ = try BatchWriter(database: importing, limits: .bulkImport, foldsUnsynced: false)
    let pages = try #require(try importing.scalarInt("PRAGMA main.wal_autocheckpoint"))
    let pageBytes = try #require(try importing.scalarInt("PRAGMA main.page_size"))
    #expect(pages * pageBytes == 64 << 20)

    let daemon = try scratch.openDatabase()
    _ = try BatchWriter(database: daemon)
    #expect(try daemon.scalarInt("PRAGMA main.wal_autocheckpoint") == 1_000)
  }
}
