import UptakeCore

/// A report's rows under named columns. The contract gives every report's CSV
/// the same columns as its JSON rows, so both are written from this one value
/// and cannot drift apart.
struct ReportTable {
  /// One cell. A nil text or fraction is JSON `null` and an empty CSV cell.
  enum Cell {
    case text(String?)
    case count(Int)
    case fraction(Double?)

    /// The cell as a JSON value.
    func write(into json: inout JSONWriter) {
      switch self {
      case .text(let text?): json.value(text)
      case .text(nil): json.null()
      case .count(let count): json.value(count)
      case .fraction(let fraction): json.value(fraction)
      }
    }
  }

  /// The JSON member names, which are also the CSV header.
  let columns: [String]
  private(set) var rows: [[Cell]] = []

  init(columns: [String]) {
    self.columns = columns
  }

  mutating func append(_ row: [Cell]) {
    rows.append(row)
  }

  /// RFC 4180 text: the header, then one line per row.
  var csv: String {
    var writer = CSVWriter()
    writer.writeRow(columns)
    for row in rows { writer.writeRow(row.map(Self.csvText)) }
    return writer.text
  }

  /// Writes the rows as a JSON array of objects.
  func writeRows(into json: inout JSONWriter) {
    json.beginArray()
    for row in rows { writeObject(row, into: &json) }
    json.endArray()
  }

  /// `{"<rowsKey>": [...]}`, or CSV when the request asked for it; `extra`
  /// may add members after the rows (JSON only).
  func response(
    _ parameters: ReportRequest, rowsKey: String, extra: (inout JSONWriter) -> Void = { _ in }
  ) -> Response {
    if parameters.wantsCSV { return .csv(csv) }
    var json = JSONWriter()
    json.beginObject()
    json.key(rowsKey)
    writeRows(into: &json)
    extra(&json)
    json.endObject()
    return .json(json)
  }

  /// A report of one row: that row as the JSON object, or CSV of one line.
  /// The one row as a JSON object, or CSV; `extra` may add members to the
  /// object (JSON only).
  func singleRowResponse(
    _ parameters: ReportRequest, extra: (inout JSONWriter) -> Void = { _ in }
  ) -> Response {
    precondition(rows.count == 1, "a single-row report has exactly one row")
    if parameters.wantsCSV { return .csv(csv) }
    var json = JSONWriter()
    writeObject(rows[0], into: &json, extra: extra)
    return .json(json)
  }

  private func writeObject(
    _ row: [Cell], into json: inout JSONWriter, extra: (inout JSONWriter) -> Void = { _ in }
  ) {
    json.beginObject()
    for (name, cell) in zip(columns, row) {
      json.key(name)
      cell.write(into: &json)
    }
    extra(&json)
    json.endObject()
  }

  private static func csvText(_ cell: Cell) -> String {
    switch cell {
    case .text(let text): return text ?? ""
    case .count(let count): return String(count)
    case .fraction(nil): return ""
    case .fraction(let fraction?):
      // Spelled exactly as in the JSON answer (rounded to 6 places).
      var json = JSONWriter()
      json.value(fraction)
      return json.text
    }
  }
}
