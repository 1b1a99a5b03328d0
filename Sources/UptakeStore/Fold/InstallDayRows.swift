/// install_days rows as `SeenWriter` writes them: whole, many to a
/// statement.
///
/// Why many: a flood's step rewrites a row for nearly every install it
/// brings, a few hundred thousand, and a statement run a row spent as much
/// in running the statement (binding, starting, halting) as in the B-tree.
/// One `INSERT OR REPLACE` of 64 rows costs about two thirds of 64 runs of
/// an `UPDATE` (docs/performance.md, session 31). REPLACE serves new rows
/// and known ones alike: install_days has no index, trigger or foreign key
/// a replace could disturb, and each row is written once a step.
struct InstallDayRows {
  static let rowsPerStatement = 64

  private let database: Database
  private let fullStatement: Statement
  private var rows: [Row] = []
  /// The rows' versions and packed times, one after another, bound from
  /// here without copies (`Statement.run(uncopied:_:)`).
  private var bytes: [UInt8] = []

  private struct Row {
    let scope: InstallScope
    let day: Int32
    let version: Range<Int>
    let firstTs: Int64
    let times: Range<Int>
  }

  init(_ database: Database) throws(StoreError) {
    self.database = database
    fullStatement = try database.statement(Self.sql(rows: Self.rowsPerStatement))
    rows.reserveCapacity(Self.rowsPerStatement)
  }

  /// A row of `scope`'s timeline, on `day` and `version`, holding
  /// `packedTimes` (`SeenTimes.pack`). It may be written only at the next
  /// `flush`.
  mutating func add(
    _ scope: InstallScope, day: Int32, version: String, firstTs: Int64, packedTimes: [UInt8]
  ) throws(StoreError) {
    let versionStart = bytes.count
    bytes += version.utf8
    let timesStart = bytes.count
    bytes += packedTimes
    rows.append(
      Row(
        scope: scope, day: day, version: versionStart..<timesStart, firstTs: firstTs,
        times: timesStart..<bytes.count))
    if rows.count == Self.rowsPerStatement { try flush() }
  }

  /// Writes the rows added since the last flush.
  mutating func flush() throws(StoreError) {
    guard !rows.isEmpty else { return }
    let statement =
      rows.count == Self.rowsPerStatement
      ? fullStatement : try database.statement(Self.sql(rows: rows.count))
    try statement.run(uncopied: bytes) { [rows] (bindings) throws(StoreError) in
      for (index, row) in rows.enumerated() {
        let first = Int32(index * 7)
        try statement.bind(first + 1, row.scope.appNo)
        try statement.bind(first + 2, Int64(row.scope.isTest ? 1 : 0))
        try statement.bind(first + 3, row.scope.installKey)
        try statement.bind(first + 4, Int64(row.day))
        try bindings.bindText(first + 5, row.version)
        try statement.bind(first + 6, row.firstTs)
        try bindings.bindBlob(first + 7, row.times)
      }
    }
    rows.removeAll(keepingCapacity: true)
    bytes.removeAll(keepingCapacity: true)
  }

  private static func sql(rows: Int) -> String {
    """
    INSERT OR REPLACE INTO install_days
      (app_no, is_test, install_key, day, app_version, first_ts, times)
    VALUES \(repeatElement("(?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", "))
    """
  }
}
