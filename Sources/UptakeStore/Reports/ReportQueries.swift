import UptakeCore

/// The reports. Each runs in one read transaction over the rollup tables
/// plus the app's events not folded yet (`RollupTail`), so it is exact and
/// costs in proportion to the buckets it reads, not to the events stored.
public struct ReportQueries {
  let database: Database
  /// The most rows (groups) a report may hold, nil for no limit: a client
  /// posting with the public key chooses how many distinct values there
  /// are, and a report of a million groups held gigabytes (issue 25).
  let maxRows: Int?
  /// The most distinct installs a report may hold in memory at once, nil
  /// for no limit: a funnel keeps about a hundred bytes an install, and
  /// anyone with the public key can post millions of installIds.
  let maxInstalls: Int?
  /// The most unfolded events a report reads as its tail, nil for no
  /// limit. The writer keeps the backlog under its cap, but after a
  /// migration that folds every event again the whole database is
  /// unfolded, and a report that read it held gigabytes: past this bound a
  /// report throws `StoreError.foldBehind` instead.
  let maxUnfoldedEvents: Int?

  public init(
    database: Database, maxRows: Int? = nil, maxInstalls: Int? = nil,
    maxUnfoldedEvents: Int? = nil
  ) {
    self.database = database
    self.maxRows = maxRows
    self.maxInstalls = maxInstalls
    self.maxUnfoldedEvents = maxUnfoldedEvents
  }

  /// The app's events not folded yet (`RollupTail`), refused past
  /// `maxUnfoldedEvents`; call inside `Database.read`.
  func unfoldedTail(appNo: Int64) throws(StoreError) -> RollupDelta {
    try RollupTail.load(database, appNo: appNo, maxEvents: maxUnfoldedEvents)
  }

  /// Throws once a report holds more than `maxInstalls` installs.
  func checkInstalls(_ installs: Int) throws(StoreError) {
    if let maxInstalls, installs > maxInstalls {
      throw .reportTooManyInstalls(maxInstalls: maxInstalls)
    }
  }

  /// Throws once a report holds more than `maxRows` groups, or has run past
  /// its time limit: called as groups are added, so a report too big
  /// stops before it holds more, and Swift's share of its time counts.
  func checkSize(_ rows: Int) throws(StoreError) {
    if let maxRows, rows > maxRows { throw .reportTooLarge(maxRows: maxRows) }
    try database.checkTimeLimit()
  }

  /// Binds (app_no, first time, last time) as parameters 1–3.
  func bindScope(_ statement: Statement, appNo: Int64, from: Int64, through: Int64)
    throws(StoreError)
  {
    try statement.bind(1, appNo)
    try statement.bind(2, from)
    try statement.bind(3, through)
  }

  /// `rows` in row order: key by key, a missing value first, versions in
  /// version order, everything else in byte order (as SQLite sorts text).
  ///
  /// Each column's distinct values are put in order once and ranked, and
  /// the rows compared by their ranks: compared as texts, a report of a few
  /// thousand rows spent a tenth of its time sorting, parsing versions and
  /// retaining texts at every comparison.
  public static func sorted(_ rows: [GroupedRow], by keys: [GroupKey]) -> [GroupedRow] {
    let width = keys.count
    var ranks = [Int32](repeating: 0, count: rows.count * width)
    for (column, key) in keys.enumerated() {
      let distinct = Array(Set(rows.lazy.map { $0.keys[column] }))
      let ordered = distinct.sorted { precedes($0, $1, key) }
      var rankOf: [String?: Int32] = [:]
      rankOf.reserveCapacity(ordered.count)
      for (rank, value) in ordered.enumerated() { rankOf[value] = Int32(rank) }
      for (row, groupedRow) in rows.enumerated() {
        ranks[row * width + column] = rankOf[groupedRow.keys[column]]!
      }
    }
    let order = ranks.withUnsafeBufferPointer { ranks in
      rows.indices.sorted { left, right in
        for column in 0..<width {
          let (leftRank, rightRank) = (ranks[left * width + column], ranks[right * width + column])
          if leftRank != rightRank { return leftRank < rightRank }
        }
        return false
      }
    }
    return order.map { rows[$0] }
  }

  /// One column's order: a missing value first, versions in version order,
  /// everything else in byte order.
  static func precedes(_ left: String?, _ right: String?, _ key: GroupKey) -> Bool {
    guard let right else { return false }
    guard let left else { return true }
    if key.isVersion { return VersionOrder.areInIncreasingOrder(left, right) }
    return left.precedesInByteOrder(right)
  }
}

extension TestFilter {
  /// The condition on `is_test` that selects this filter's events.
  var sqlCondition: String {
    switch self {
    case .exclude: "is_test = 0"
    case .include: "is_test IN (0, 1)"
    case .only: "is_test = 1"
    }
  }

  func admits(isTest: Bool) -> Bool {
    switch self {
    case .exclude: !isTest
    case .include: true
    case .only: isTest
    }
  }
}
