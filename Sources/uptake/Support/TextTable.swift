/// A table for a person at a terminal: a header row, then the rows; columns
/// two spaces apart, numbers right-aligned and text left-aligned. Widths count
/// characters, so `—` takes one column like any other.
struct TextTable {
  enum Alignment {
    case left, right
  }

  struct Column {
    let title: String
    let alignment: Alignment

    static func text(_ title: String) -> Column { Column(title: title, alignment: .left) }
    static func number(_ title: String) -> Column { Column(title: title, alignment: .right) }
  }

  let columns: [Column]
  private(set) var rows: [[String]] = []

  init(_ columns: [Column]) {
    self.columns = columns
  }

  mutating func append(_ row: [String]) {
    precondition(row.count == columns.count, "a row has a cell per column")
    rows.append(row)
  }

  /// The lines, each ending in a newline, without trailing spaces.
  var text: String {
    let lines = [columns.map(\.title)] + rows
    let widths = columns.indices.map { index in lines.map { $0[index].count }.max() ?? 0 }
    var text = ""
    for line in lines {
      var cells: [String] = []
      for (index, cell) in line.enumerated() {
        let padding = String(repeating: " ", count: widths[index] - cell.count)
        cells.append(columns[index].alignment == .left ? cell + padding : padding + cell)
      }
      var joined = cells.joined(separator: "  ")
      while joined.last == " " { joined.removeLast() }
      text += joined + "\n"
    }
    return text
  }
}
