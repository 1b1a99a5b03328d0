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
