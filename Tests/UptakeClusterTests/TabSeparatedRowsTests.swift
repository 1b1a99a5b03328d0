import Testing

@testable import UptakeCluster

/// ClickHouse's TabSeparated answers, read as Strings (`parse`) and as
/// bytes (`forEachRow`): both must give the same fields.
@Suite("TabSeparated rows read as text and as bytes")
struct TabSeparatedRowsTests {
  static let text =
    "0\t12345678901234567890\t-42\t1.2.3\n"
    + "1\t7\t1796160000000\tv\\\\2\\t\\n\n"
    + "\t\t\t\n"
    + "2\t[1,-2,30]\tlast"

  @Test("every field of every row, escapes read, a last row without its newline")
  func bothWays() {
    var rows: [[String]] = []
    TabSeparatedRows.forEachRow(in: Self.text) { fields, escaped in
      rows.append(zip(fields, escaped).map { TabSeparatedRows.field($0, $1) })
    }
    #expect(
      rows == [
        ["0", "12345678901234567890", "-42", "1.2.3"],
        ["1", "7", "1796160000000", "v\\2\t\n"],
        ["", "", "", ""],
        ["2", "[1,-2,30]", "last"],
      ])
    #expect(rows == TabSeparatedRows.parse(Self.text))
    var count = 0
    TabSeparatedRows.forEachRow(in: "") { _, _ in count += 1 }
    TabSeparatedRows.forEachRow(in: "a\n") { _, _ in count += 10 }
    #expect(count == 10)
  }

  @Test("numbers read from bytes, and what is not one refused")
  func numbers() {
    func read<T>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
      var text = text
      return text.withUTF8(body)
    }
    #expect(read("18446744073709551615") { TabSeparatedRows.unsigned($0) } == .max)
    #expect(read("18446744073709551616") { TabSeparatedRows.unsigned($0) } == nil)
    #expect(read("") { TabSeparatedRows.unsigned($0) } == nil)
    #expect(read("12a") { TabSeparatedRows.unsigned($0) } == nil)
    #expect(read("-9223372036854775808") { TabSeparatedRows.signed($0) } == .min)
    #expect(read("9223372036854775807") { TabSeparatedRows.signed($0) } == .max)
    #expect(read("9223372036854775808") { TabSeparatedRows.signed($0) } == nil)
    #expect(read("-1796160000000") { TabSeparatedRows.signed($0) } == -1_796_160_000_000)
    #expect(read("-") { TabSeparatedRows.signed($0) } == nil)
  }
}
