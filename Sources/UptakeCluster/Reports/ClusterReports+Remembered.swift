import UptakeCore
import UptakeStore

/// A daily query of report_days whose rows a node remembers group by
/// group (`ReportDayCache`): each row is one day's one group, the day
/// (`toUInt32(day)`) and the group's keys first, then `values`.
struct DailyGroups {
  /// Names the query by all that decides its rows but the app, the test
  /// filter and the days.
  let name: String
  /// The group's keys beside the day, as SQL; `numeric` ones are written
  /// as numbers when a query names groups.
  let keys: [(sql: String, numeric: Bool)]
  /// The aggregates of each group.
  let values: [String]
  /// A further condition on the rows (one update), or nil.
  var condition: String? = nil
}

extension DailyGroups {
  /// `/v1/updates`: events, first and last seen by update and action.
  static let updates = DailyGroups(
    name: "updates", keys: [column(.updateId), column(.action)],
    values: ["uniqExactMerge(ids)", "minMerge(first_ms)", "maxMerge(last_ms)"])

  /// One update's events by action (`/v1/updates/{updateId}`).
  static func update(_ updateId: String) -> DailyGroups {
    DailyGroups(
      name: "update \(updateId)", keys: [column(.action)], values: ["uniqExactMerge(ids)"],
      condition: "update_id = \(ClusterReports.quoted(updateId))")
  }

  /// `/v1/report` by date and `keys`: each group's events and installs.
  static func groups(_ keys: [GroupKey]) -> DailyGroups {
    let keys = canonical(keys)
    return DailyGroups(
      name: "groups " + keys.map(\.rawValue).joined(separator: ","), keys: keys.map(column),
      values: ["uniqExactMerge(ids)", "uniqExactIfMerge(installs)"])
  }

  /// `/v1/report` by `keys` and not by date: each day's events of a group,
  /// to be summed.
  static func events(_ keys: [GroupKey]) -> DailyGroups {
    let keys = canonical(keys)
    return DailyGroups(
      name: "events " + keys.map(\.rawValue).joined(separator: ","), keys: keys.map(column),
      values: ["uniqExactMerge(ids)", "toUInt64(0)"])
  }

  /// `/v1/adoption`: each day's installs, then by version.
  static let adoption = DailyGroups(
    name: "adoption", keys: [], values: ["uniqExactIfMerge(installs)"])
  static let adoptionByVersion = DailyGroups(
    name: "adoption by version", keys: [column(.appVersion)],
    values: ["uniqExactIfMerge(installs)"])

  /// The keys but the date, in one order whatever order a report names
  /// them in: a report by `updateId,action,date` and one by
  /// `date,updateId,action` share what is remembered.
  static func canonical(_ keys: [GroupKey]) -> [GroupKey] {
    GroupKey.allCases.filter { $0 != .date && keys.contains($0) }
  }

  /// A key's column in report_days, and whether it is a number.
  static func column(_ key: GroupKey) -> (sql: String, numeric: Bool) {
    switch key {
    case .date: ("toUInt32(day)", true)
    case .updateId: ("update_id", false)
    case .action: ("toUInt8(action)", true)
    case .appVersion: ("app_version", false)
    case .platform: ("platform", false)
    case .osVersion: ("os_version", false)
    }
  }
}

extension ClusterReports {
  /// Asks what the dashboard's first pages ask of `appId` over the last
  /// 30 days, without events of tests, for its groups to be remembered
  /// (`ReportWarmer`): updates, the report by date, update and action
  /// and its events without the date, and adoption.
  func warm(appId: String, nowMs: Int64) throws(StoreError) {
    let range = DayRange.lastThirtyDays(nowMs: nowMs)
    for query in [
      DailyGroups.updates, .groups([.date, .updateId, .action]), .events([.updateId, .action]),
      .adoption, .adoptionByVersion,
    ] {
      _ = try remembered(query, appId: appId, range: range, test: .exclude)
    }
  }

  /// The apps whose reports were asked for in the last `seconds`.
  func appsAsked(withinSeconds seconds: Double) -> [String] {
    dayCache.appsAsked(withinSeconds: seconds)
  }

  /// `query`'s rows over the range, every shard's (the caller sums them).
  ///
  /// It first reads how many events each group of each day has taken in
  /// (`report_days.inserts`, schema/clickhouse/0007), which reads no set.
  /// A group whose count is the one remembered is answered from
  /// `dayCache`; the others are asked in one query, by name, and
  /// remembered. A late event changes one group of its day, so a flow of
  /// them leaves most of a range remembered.
  func remembered(_ query: DailyGroups, appId: String, range: DayRange, test: TestFilter)
    throws(StoreError) -> [[String]]
  {
    let table = "\(layout.database).report_days"
    let scope =
      scope(appId: appId, range: range, test: test)
      + (query.condition.map { " AND \($0)" } ?? "")
    let keys = query.keys.map { ", " + $0.sql }.joined()
    var counts: [ReportDayCache.Key: UInt64] = [:]
    for row in try self.query(
      """
      SELECT toUInt32(day)\(keys), countMerge(inserts) FROM \(table)
      WHERE \(scope) GROUP BY day\(keys)
      """)
    {
      guard row.count == query.keys.count + 2, let day = Int64(row[0]),
        let count = UInt64(row[row.count - 1])
      else { continue }
      counts[key(query, appId: appId, test: test, day: day, row: row), default: 0] += count
    }
    var rows: [[String]] = []
    var asked: [ReportDayCache.Key] = []
    for (group, count) in counts {
      if let remembered = dayCache.rows(for: group, inserts: count) {
        rows += remembered
      } else {
        asked.append(group)
      }
    }
    guard !asked.isEmpty else { return rows }
    var fetched: [ReportDayCache.Key: [[String]]] = [:]
    for row in try self.query(
      """
      SELECT toUInt32(day)\(keys), \(query.values.joined(separator: ", ")) FROM \(table)
      WHERE \(scope) AND \(condition(asking: asked, of: query)) GROUP BY day\(keys)
      """)
    {
      guard row.count == 1 + query.keys.count + query.values.count, let day = Int64(row[0])
      else { continue }
      fetched[key(query, appId: appId, test: test, day: day, row: row), default: []].append(row)
    }
    for group in asked {
      let groupRows = fetched[group] ?? []
      dayCache.remember(groupRows, for: group, inserts: counts[group] ?? 0)
      rows += groupRows
    }
    return rows
  }

  /// The cache's key of the group a row (day, keys, …) belongs to.
  private func key(
    _ query: DailyGroups, appId: String, test: TestFilter, day: Int64, row: [String]
  ) -> ReportDayCache.Key {
    ReportDayCache.Key(
      appId: appId, test: test, shape: query.name, day: day,
      group: Array(row[1..<(1 + query.keys.count)]))
  }

  /// The rows of the groups to ask: by name, or when there are many, their
  /// days whole (the groups remembered there are read again too, and
  /// left as remembered).
  private func condition(asking groups: [ReportDayCache.Key], of query: DailyGroups) -> String {
    guard groups.count <= maxGroupsAskedByName else {
      let days = Set(groups.map(\.day)).sorted().map {
        "toDate('\(Timestamp.formatDate(dayNumber: $0))')"
      }
      return "day IN (\(days.joined(separator: ", ")))"
    }
    let names = groups.map { group in
      let keys = zip(query.keys, group.group).map { key, value in
        key.numeric ? value : Self.quoted(value)
      }
      return "(" + ([String(group.day)] + keys).joined(separator: ", ") + ")"
    }
    let columns = (["toUInt32(day)"] + query.keys.map(\.sql)).joined(separator: ", ")
    return "(\(columns)) IN (\(names.joined(separator: ", ")))"
  }
}
