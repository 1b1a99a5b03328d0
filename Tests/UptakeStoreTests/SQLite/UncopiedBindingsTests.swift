import Testing
import UptakeTestSupport

@testable import UptakeStore

@Suite("Texts and blobs bound from one buffer without copies")
struct UncopiedBindingsTests {
  @Test("rows store the ranges bound, empty ones included, and no binding outlives the run")
  func bindsRangesThenClears() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    try database.execute("CREATE TABLE t (n INTEGER, a TEXT, b BLOB)")
    let insert = try database.statement(
      "INSERT INTO t (n, a, b) VALUES (?1, ?2, ?3), (?4, ?5, ?6)")
    let bytes = Array("2.9.1".utf8) + [0, 1, 255] + Array("ios".utf8)
    try insert.run(uncopied: bytes) { (bindings) throws(StoreError) in
      try insert.bind(1, Int64(1))
      try bindings.bindText(2, 0..<5)
      try bindings.bindBlob(3, 5..<8)
      try insert.bind(4, Int64(2))
      try bindings.bindText(5, 8..<11)
      try bindings.bindBlob(6, 11..<11)
    }
    // Run again unbound: every value is NULL, none left pointing into the
    // buffer.
    try insert.run()

    let select = try database.statement(
      "SELECT quote(n), quote(a), quote(b) FROM t ORDER BY rowid")
    var stored: [String] = []
    while try select.step() {
      stored.append("\(select.string(0)) \(select.string(1)) \(select.string(2))")
    }
    #expect(
      stored == [
        "1 '2.9.1' X'0001FF'", "2 'ios' X''", "NULL NULL NULL", "NULL NULL NULL",
      ])
  }
}
