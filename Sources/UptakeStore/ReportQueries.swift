import UptakeCore

/// The reports' queries over stored events.
public struct ReportQueries {
  private let database: Database

  public init(database: Database) {
    self.database = database
  }

  /// Every update of the app with events in the range, by updateId.
  public func updates(appNo: Int64, range: DayRange, test: TestFilter) throws(StoreError)
    -> [UpdateSummary]
  {
    let statement = try database.statement(
      """
      SELECT update_id, min(ts), max(ts), sum(action = 0), sum(action = 1), sum(action = 2),
        sum(action = 3)
      FROM events WHERE app_no = ? AND ts >= ? AND ts < ? AND \(Self.testCondition(test))
      GROUP BY update_id ORDER BY update_id
      """)
    try bindScope(statement, appNo: appNo, range: range)
    var updates: [UpdateSummary] = []
    while try statement.step() {
      updates.append(
        UpdateSummary(
          updateId: statement.string(0), firstSeenMs: statement.int64(1),
          lastSeenMs: statement.int64(2), events: (3...6).map { statement.int(Int32($0)) }))
    }
    return updates
  }

  /// One update's counts by action and by day. An update without events in
  /// the range has zero counts and no days.
  public func update(appNo: Int64, updateId: String, range: DayRange, test: TestFilter)
    throws(StoreError) -> UpdateDetail
  {
    try database.read { () throws(StoreError) -> UpdateDetail in
      let byAction = try database.statement(
        """
        SELECT action, count(*), count(DISTINCT install_id) FROM events
        WHERE app_no = ? AND ts >= ? AND ts < ? AND \(Self.testCondition(test)) AND update_id = ?
        GROUP BY action
        """)
      try bindScope(byAction, appNo: appNo, range: range)
      try byAction.bind(4, updateId)
      var actions = Array(repeating: ActionCounts(), count: Action.allCases.count)
      while try byAction.step() {
        actions[byAction.int(0)] = ActionCounts(events: byAction.int(1), installs: byAction.int(2))
      }
      let byDay = try database.statement(
        """
        SELECT ts / 86400000, sum(action = 0), sum(action = 1), sum(action = 2), sum(action = 3)
        FROM events
        WHERE app_no = ? AND ts >= ? AND ts < ? AND \(Self.testCondition(test)) AND update_id = ?
        GROUP BY 1 ORDER BY 1
        """)
      try bindScope(byDay, appNo: appNo, range: range)
      try byDay.bind(4, updateId)
      var days: [(day: Int64, events: [Int])] = []
      while try byDay.step() {
        days.append((byDay.int64(0), (1...4).map { byDay.int(Int32($0)) }))
      }
      return UpdateDetail(updateId: updateId, actions: actions, days: days)
    }
  }

  /// Events and distinct installs grouped by `keys`, sorted by the keys in
  /// order: versions in version order, everything else in text order.
  public func grouped(
    appNo: Int64, keys: [GroupKey], granularity: Granularity, range: DayRange, test: TestFilter
  ) throws(StoreError) -> [GroupedRow] {
    let columns = keys.map { Self.column($0, granularity: granularity) }
    let selectList = (columns + ["count(*)", "count(DISTINCT install_id)"]).joined(separator: ", ")
    let groupList =
      keys.isEmpty ? "" : "GROUP BY " + (1...keys.count).map(String.init).joined(separator: ", ")
    let statement = try database.statement(
      """
      SELECT \(selectList) FROM events
      WHERE app_no = ? AND ts >= ? AND ts < ? AND \(Self.testCondition(test)) \(groupList)
      """)
    try bindScope(statement, appNo: appNo, range: range)
    var rows: [GroupedRow] = []
    while try statement.step() {
      var values: [String?] = []
      for (index, key) in keys.enumerated() {
        let column = Int32(index)
        values.append(
          statement.isNull(column) ? nil : Self.format(key, statement, column, granularity))
      }
      let count = Int32(keys.count)
      let events = statement.int(count)
      guard events > 0 else { continue }  // an aggregate without GROUP BY over no rows
      rows.append(GroupedRow(keys: values, events: events, installs: statement.int(count + 1)))
    }
    rows.sort { lhs, rhs in Self.precedes(lhs.keys, rhs.keys, keys) }
    return rows
  }

  private func bindScope(_ statement: Statement, appNo: Int64, range: DayRange) throws(StoreError) {
    try statement.bind(1, appNo)
    try statement.bind(2, range.startMs)
    try statement.bind(3, range.endMs)
  }

  private static func testCondition(_ filter: TestFilter) -> String {
    switch filter {
    case .exclude: "is_test = 0"
    case .include: "1"
    case .only: "is_test = 1"
    }
  }

  private static func column(_ key: GroupKey, granularity: Granularity) -> String {
    switch key {
    case .date: granularity == .day ? "ts / 86400000" : "ts / 3600000"
    case .updateId: "update_id"
    case .action: "action"
    case .appVersion: "app_version"
    case .platform: "platform"
    case .osVersion: "os_version"
    }
  }

  private static func format(
    _ key: GroupKey, _ statement: Statement, _ column: Int32, _ granularity: Granularity
  ) -> String {
    switch key {
    case .date:
      let bucket = statement.int64(column)
      guard granularity == .hour else { return Timestamp.formatDate(dayNumber: bucket) }
      let day = Timestamp.formatDate(dayNumber: bucket >= 0 ? bucket / 24 : (bucket - 23) / 24)
      let hour = ((bucket % 24) + 24) % 24
      return day + (hour < 10 ? "T0" : "T") + String(hour)
    case .action:
      return Action(rawValue: statement.int(column))?.name ?? "unknown"
    default:
      return statement.string(column)
    }
  }

  /// Row order: key by key, a missing value first, versions in version order.
  static func precedes(_ lhs: [String?], _ rhs: [String?], _ keys: [GroupKey]) -> Bool {
    for (index, key) in keys.enumerated() {
      let left = lhs[index]
      let right = rhs[index]
      if left == right { continue }
      guard let left else { return true }
      guard let right else { return false }
      if key.isVersion { return VersionOrder.areInIncreasingOrder(left, right) }
      return left < right
    }
    return false
  }
}
