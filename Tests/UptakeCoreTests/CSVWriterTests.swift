import Testing
import UptakeCore

@Suite struct CSVWriterTests {
  @Test func rowsEndWithCRLF() {
    var csv = CSVWriter()
    csv.writeRow(["date", "update_id", "action", "events", "installs"])
    csv.writeRow(["2025-11-29", "782000001589015", "impression", "12", "9"])
    #expect(
      csv.text
        == "date,update_id,action,events,installs\r\n2025-11-29,782000001589015,impression,12,9\r\n"
    )
  }

  @Test func quotesOnlyCellsThatNeedIt() {
    var csv = CSVWriter()
    csv.writeRow(["a,b", #"say "hi""#, "two\nlines", "cr\rhere", "plain", "é ☃"])
    #expect(csv.text == "\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\rhere\",plain,é ☃\r\n")
  }

  @Test func emptyCellsAndRows() {
    var csv = CSVWriter()
    csv.writeRow(["", ""])
    csv.writeRow([])
    csv.writeRow([""])
    #expect(csv.text == ",\r\n\r\n\r\n")
  }

  @Test func formulaCellsAreNeutralisedThenQuoted() {
    var csv = CSVWriter()
    csv.writeRow(["=SUM(A1:A9)", "+1", "-1", "@cmd", "\tx", "\rx", #"=HYPERLINK("http://x","y")"#])
    #expect(
      csv.text
        == "'=SUM(A1:A9),'+1,'-1,'@cmd,'\tx,\"'\rx\",\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"\r\n"
    )
  }

  @Test(arguments: [
    ("=1+1", "'=1+1"), ("+", "'+"), ("-", "'-"), ("@", "'@"), ("\t", "'\t"), ("\r\n", "'\r\n"),
    ("a=b", "a=b"), ("2.0-beta", "2.0-beta"), ("'=1", "'=1"), ("", ""),
  ])
  func neutralisation(cell: String, expected: String) {
    #expect(CSVCell.neutralised(cell) == expected)
  }

  @Test(
    "a formula character after leading whitespace, or in its full-width form, is neutralised",
    arguments: [
      " =1", "   +1", " -1", " @SUM(A1)", "\n=1", "\u{0B}=1", "\u{0C}=1", "\u{85}=1",
      "\u{A0}=1", "\u{A0}\u{A0}@x", "\u{1680}=1", "\u{2002}+1", "\u{2009}-1", "\u{200A}=1",
      "\u{2028}=1", "\u{2029}=1", "\u{202F}=1", "\u{205F}=1", "\u{3000}=1", "\u{FEFF}=1",
      "\u{200B}=1", "＝1", "＋1", "－1", "＠x", "﹦1", "﹢1", "﹣1", "﹫x", " ＝1", "\u{A0}＠x",
      "\u{3000}＋1", " \t\u{A0}\u{3000}－1",
    ])
  func neutralisedAfterWhitespaceOrFullWidth(cell: String) {
    #expect(CSVCell.neutralised(cell) == "'" + cell)
  }

  @Test(
    "whitespace without a formula character after it, or inside a cell, stays as it is",
    arguments: [
      " ", "   ", "\u{A0}", " 1.0", "\u{A0}2.0", " a=b", "1 =2", "2.0 -beta", "x＝1", "'＝1",
      "\u{3000}", "ios 17", "1.0\u{A0}", "−1",
    ])
  func unchanged(cell: String) {
    #expect(CSVCell.neutralised(cell) == cell)
  }
}
