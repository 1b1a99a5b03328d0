import Testing
import UptakeStore
import UptakeTestSupport

@Suite("Statement text bindings: copied, and replaced row after row")
struct StatementTextTests {
  @Test(
    "text, empty text and NULL are stored as bound; a shorter or NULL text replaces a longer one")
  func bindsRowAfterRow() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    try database.execute("CREATE TABLE t (n INTEGER, a TEXT, b TEXT, c TEXT)")
    let insert = try database.statement("INSERT INTO t (n, a, b, c) VALUES (?, ?, ?, ?)")
    let long = String(repeating: "ü", count: 40)
    let rows: [(Int64, String?, String?, String?)] = [
      (1, "2.9.1", "", nil), (2, long, nil, "ios"), (3, "1", long, ""),
    ]
    for (number, a, b, c) in rows {
      // The bound strings are gone before the row is stored: SQLite has
      // its own copies.
      try insert.bind(1, number)
      try insert.bind(2, a.map { String($0) })
      try insert.bind(3, b.map { String($0) })
      try insert.bind(4, c.map { String($0) })
      try insert.run()
    }

    let select = try database.statement(
      "SELECT n, quote(a), quote(b), quote(c) FROM t ORDER BY rowid")
    var stored: [String] = []
    while try select.step() {
      stored.append(
        "\(select.int(0)) \(select.string(1)) \(select.string(2)) \(select.string(3))")
    }
    #expect(stored == ["1 '2.9.1' '' NULL", "2 '\(long)' NULL 'ios'", "3 '1' '\(long)' ''"])
  }
}
