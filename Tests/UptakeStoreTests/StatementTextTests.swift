import Testing
import UptakeStore

@Suite("Statement.withText: text bound without a copy, cleared afterwards")
struct StatementTextTests {
  @Test("text, empty text and NULL are stored as bound; no binding outlives the call")
  func bindsAndClears() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    try database.execute("CREATE TABLE t (n INTEGER, a TEXT, b TEXT, c TEXT)")
    let insert = try database.statement("INSERT INTO t (n, a, b, c) VALUES (?, ?, ?, ?)")
    let long = String(repeating: "ü", count: 40)

    try insert.bind(1, Int64(1))
    try insert.withText([(2, "2.9.1"), (3, ""), (4, nil)][...]) { () throws(StoreError) in
      try insert.run()
    }
    try insert.bind(1, Int64(2))
    try insert.withText([(2, long), (3, nil), (4, "ios")][...]) { () throws(StoreError) in
      try insert.run()
    }
    try insert.run()

    let rows = try database.statement(
      "SELECT n, quote(a), quote(b), quote(c) FROM t ORDER BY rowid")
    var stored: [String] = []
    while try rows.step() {
      stored.append(
        "\(rows.isNull(0) ? "NULL" : String(rows.int(0))) \(rows.string(1)) \(rows.string(2)) \(rows.string(3))"
      )
    }
    #expect(stored == ["1 '2.9.1' '' NULL", "2 '\(long)' NULL 'ios'", "NULL NULL NULL NULL"])
  }
}
