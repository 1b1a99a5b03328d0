/// Protection against CSV formula injection: a spreadsheet runs a cell that
/// starts with `=`, `+`, `-` or `@` as a formula (and tab or CR can hide such
/// a start), so a client could plant one in an exported report through a
/// version string or an update id. Spreadsheets also trim leading
/// whitespace, NBSP and the like before they look, and some fold the
/// full-width forms (`＝`, `＋`, `－`, `＠`) to the ASCII ones, so a formula
/// character behind such a start, or in such a form, counts too.
public enum CSVCell {
  /// The cell with a leading `'` when it starts with `=`, `+`, `-`, `@`, tab
  /// or CR, or with a formula character (in any of its forms) after leading
  /// whitespace or invisible characters; spreadsheets show such a cell as
  /// text. Any other cell unchanged.
  public static func neutralised(_ cell: String) -> String {
    // Almost every cell (dates, counts, versions, ids) starts with an ASCII
    // letter or digit, and is settled by its first byte.
    guard let first = cell.utf8.first, !isPlainStart(first) else { return cell }
    if first == UInt8(ascii: "\t") || first == UInt8(ascii: "\r") { return "'" + cell }
    let start = cell.unicodeScalars.first { !isSkipped($0) }
    return start.map(isFormulaStart) == true ? "'" + cell : cell
  }

  private static func isPlainStart(_ byte: UInt8) -> Bool {
    (byte | 0x20) &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10
  }

  /// What a spreadsheet may pass over before it looks for a formula:
  /// whitespace (space, tab, LF, VT, FF, CR, NEL, NBSP, U+2000–U+200A,
  /// U+2028, U+2029, U+202F, U+205F, U+3000...), other controls, and
  /// invisible format characters such as U+200B and U+FEFF.
  private static func isSkipped(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator: true
    default: scalar.properties.isWhitespace
    }
  }

  /// `=`, `+`, `-`, `@`, their full-width forms (U+FF1D, U+FF0B, U+FF0D,
  /// U+FF20) and their small forms (U+FE66, U+FE62, U+FE63, U+FE6B), which
  /// compatibility folding also turns into the ASCII ones.
  private static func isFormulaStart(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x3D, 0x2B, 0x2D, 0x40, 0xFF1D, 0xFF0B, 0xFF0D, 0xFF20, 0xFE66, 0xFE62, 0xFE63, 0xFE6B:
      true
    default:
      false
    }
  }
}
