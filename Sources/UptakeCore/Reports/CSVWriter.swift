/// Writes RFC 4180 CSV: cells separated by commas, rows ending in CRLF, a
/// cell quoted when it holds a comma, quote, CR or LF, quotes inside doubled.
/// Every cell is neutralised first (see `CSVCell`), because these files are
/// opened in spreadsheets.
public struct CSVWriter {
  /// Everything written so far.
  public private(set) var text: String = ""

  /// An empty document.
  public init() {}

  /// Appends one row.
  public mutating func writeRow(_ cells: [String]) {
    for (index, cell) in cells.enumerated() {
      if index > 0 { text.append(",") }
      let safe = CSVCell.neutralised(cell)
      let needsQuotes = safe.utf8.contains { byte in
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\r")
          || byte == UInt8(ascii: "\n")
      }
      if needsQuotes {
        text.append("\"")
        text.append(safe.replacing("\"", with: "\"\""))
        text.append("\"")
      } else {
        text.append(safe)
      }
    }
    text.append("\r\n")
  }
}
