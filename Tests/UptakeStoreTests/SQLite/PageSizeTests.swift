import CSQLite
import Testing
import UptakeTestSupport

@testable import UptakeStore

@Suite("Page size: new files get Database.pageSize, older files keep theirs")
struct PageSizeTests {
  @Test("a new database and its rollups file are made with 16 KiB pages")
  func newFiles() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    #expect(try database.scalarInt("PRAGMA main.page_size") == Int64(Database.pageSize))
    #expect(try database.scalarInt("PRAGMA rollups.page_size") == Int64(Database.pageSize))
  }

  @Test("a file made with 4 KiB pages before keeps them, and works")
  func olderFileKeepsItsPages() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    var handle: OpaquePointer?
    #expect(sqlite3_open(scratch.databasePath, &handle) == SQLITE_OK)
    let made = sqlite3_exec(
      handle, "PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; CREATE TABLE older (x);",
      nil, nil, nil)
    sqlite3_close(handle)
    #expect(made == SQLITE_OK)

    let database = try scratch.openDatabase()
    #expect(try database.scalarInt("PRAGMA main.page_size") == 4096)
    #expect(try database.scalarInt("SELECT count(*) FROM older") == 0)
  }
}
