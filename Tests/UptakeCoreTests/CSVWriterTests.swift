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
    ("a=b", "a=b"), ("2.0-beta", "2.0-beta"), (" =1", " =1"), ("'=1", "'=1"), ("", ""),
    ("\n=1", "\n=1"), ("＝1", "＝1"),
  ])
  func neutralisation(cell: String, expected: String) {
    #expect(CSVCell.neutralised(cell) == expected)
  }
}
