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

/// Protection against CSV formula injection: a spreadsheet runs a cell that
/// starts with `=`, `+`, `-` or `@` as a formula (and tab or CR can hide such
/// a start), so a client could plant one in an exported report through a
/// version string or an update id.
public enum CSVCell {
  /// The cell with a leading `'` when it starts with `=`, `+`, `-`, `@`, tab
  /// or CR, which spreadsheets show as text; any other cell unchanged.
  public static func neutralised(_ cell: String) -> String {
    switch cell.utf8.first {
    case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"),
      UInt8(ascii: "\t"), UInt8(ascii: "\r"):
      return "'" + cell
    default:
      return cell
    }
  }
}
