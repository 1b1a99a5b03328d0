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

  public init(database: Database, maxRows: Int? = nil, maxInstalls: Int? = nil) {
    self.database = database
    self.maxRows = maxRows
    self.maxInstalls = maxInstalls
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

  /// Row order: key by key, a missing value first, versions in version
  /// order, everything else in byte order (as SQLite sorts text).
  static func precedes(_ lhs: [String?], _ rhs: [String?], _ keys: [GroupKey]) -> Bool {
    for (index, key) in keys.enumerated() {
      let left = lhs[index]
      let right = rhs[index]
      if left == right { continue }
      guard let left else { return true }
      guard let right else { return false }
      if key.isVersion { return VersionOrder.areInIncreasingOrder(left, right) }
      return left.precedesInByteOrder(right)
    }
    return false
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
