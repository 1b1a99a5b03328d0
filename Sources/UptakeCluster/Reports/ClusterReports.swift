import Foundation
import UptakeCore
import UptakeStore

/// The reports a node reads from the cluster's aggregates
/// (schema/clickhouse/0004_report_days.sql, 0005_report_hours.sql), in the
/// same rows as one box's `ReportQueries`, so the HTTP layer answers the
/// same JSON and CSV.
///
/// Every query needs every shard: ClickHouse refuses a distributed query
/// with a shard down unless told to skip it, and it is never told, so a
/// report is whole or it is `StoreError.clusterUnavailable` (a 503).
public struct ClusterReports: Sendable {
  let layout: ClusterLayout
  /// Rows a report may hold at most, as on one box (`ReportQueries`).
  let maxRows: Int?
  /// Each day's groups of rows of the queries asked before, answered
  /// again while the group is unchanged (`ReportDayCache`).
  let dayCache: ReportDayCache
  /// Past this many groups to ask again, a query asks their whole days
  /// (`remembered`): a list of names that long costs more to send and
  /// match than the days' other groups.
  let maxGroupsAskedByName: Int

  public init(layout: ClusterLayout, maxRows: Int? = nil) {
    self.init(layout: layout, maxRows: maxRows, maxGroupsAskedByName: 500)
  }

  init(layout: ClusterLayout, maxRows: Int? = nil, maxGroupsAskedByName: Int) {
    self.layout = layout
    self.maxRows = maxRows
    self.maxGroupsAskedByName = maxGroupsAskedByName
    dayCache = ReportDayCache()
  }

  /// Groups of days answered from the node's memory and groups asked of
  /// the cluster, since it started (`/metrics`).
  public var rememberedGroups: (remembered: Int, asked: Int) {
    let counts = dayCache.statistics
    return (counts.remembered, counts.asked)
  }

  /// Every update with events in the range: events by action, first and
  /// last seen; by update id in byte order.
  public func updates(appId: String, range: DayRange, test: TestFilter) throws(StoreError)
    -> [UpdateSummary]
  {
    dayCache.noteAsked(appId)
    let rows = try remembered(.updates, appId: appId, range: range, test: test)
    var byUpdate: [String: (events: [Int], first: Int64, last: Int64)] = [:]
    for row in rows {
      guard row.count == 6, let action = Int(row[2]), action < 4, let events = Int(row[3]),
        let first = Int64(row[4]), let last = Int64(row[5])
      else { continue }
      var entry = byUpdate[row[1]] ?? ([0, 0, 0, 0], .max, .min)
      entry.events[action] += events
      entry.first = min(entry.first, first)
      entry.last = max(entry.last, last)
      byUpdate[row[1]] = entry
    }
    if let maxRows, byUpdate.count > maxRows { throw .reportTooLarge(maxRows: maxRows) }
    return UpdateSummary.sorted(byUpdate)
  }

  /// One update's events and distinct installs by action over the range,
  /// and its events by day (remembered: `remembered`).
  public func update(appId: String, updateId: String, range: DayRange, test: TestFilter)
    throws(StoreError) -> UpdateDetail
  {
    dayCache.noteAsked(appId)
    let scope =
      "\(scope(appId: appId, range: range, test: test)) AND update_id = \(Self.quoted(updateId))"
    let (installRows, dayRows) = try bothAtOnce(
      { [self] () throws(StoreError) in
        try query(
          """
          SELECT toUInt8(action), uniqExactIfMerge(installs)
          FROM \(layout.database).report_days WHERE \(scope)
          GROUP BY action
          """)
      },
      { () throws(StoreError) in
        try remembered(.update(updateId), appId: appId, range: range, test: test)
      })
    var byDay: [Int64: [Int]] = [:]
    var actions = Array(repeating: ActionCounts(), count: Action.allCases.count)
    for row in dayRows {
      guard row.count == 3, let day = Int64(row[0]), let action = Int(row[1]), action < 4,
        let events = Int(row[2])
      else { continue }
      byDay[day, default: [0, 0, 0, 0]][action] += events
      actions[action].events += events
    }
    for row in installRows {
      guard row.count == 2, let action = Int(row[0]), action < 4, let installs = Int(row[1])
      else { continue }
      actions[action].installs += installs
    }
    return UpdateDetail(
      updateId: updateId, actions: actions,
      days: byDay.sorted { $0.key < $1.key }.map { (day: $0.key, events: $0.value) })
  }

  /// Events and distinct installs grouped by `keys`, in one box's order
  /// (`ReportQueries.sorted`), from the hourly aggregates for an hourly
  /// report and the daily ones otherwise
  /// (schema/clickhouse/0004_report_days.sql, 0005_report_hours.sql).
  public func grouped(
    appId: String, keys: [GroupKey], granularity: Granularity, range: DayRange, test: TestFilter
  ) throws(StoreError) -> [GroupedRow] {
    let hourly = granularity == .hour
    dayCache.noteAsked(appId)
    // An hourly report's columns; a daily one's are `DailyGroups.column`'s.
    let columns = keys.map { $0 == .date ? "hour" : DailyGroups.column($0).sql }
    let rows =
      hourly
      ? try query(
        """
        SELECT \((columns + ["uniqExactMerge(ids)", "uniqExactIfMerge(installs)"]).joined(separator: ", "))
        FROM \(layout.database).report_hours
        WHERE \(hourScope(appId: appId, range: range, test: test))
        \(columns.isEmpty ? "" : "GROUP BY " + columns.joined(separator: ", "))
        """)
      : try dailyGroups(appId: appId, keys: keys, range: range, test: test)
    // Each shard's rows are its own groups' counts: summed by the keys.
    var sums: [[String]: (events: Int, installs: Int)] = [:]
    for row in rows {
      guard row.count == keys.count + 2, let events = Int(row[keys.count]),
        let installs = Int(row[keys.count + 1])
      else { continue }
      let key = Array(row[..<keys.count])
      sums[key, default: (0, 0)].events += events
      sums[key, default: (0, 0)].installs += installs
      if let maxRows, sums.count > maxRows { throw .reportTooLarge(maxRows: maxRows) }
    }
    let grouped = sums.compactMap { row, counts -> GroupedRow? in
      guard counts.events > 0 else { return nil }
      let (events, installs) = counts
      let values = zip(keys, row).map { key, text -> String? in
        switch key {
        case .date:
          guard let number = Int64(text) else { return text }
          return hourly
            ? ReportQueries.formatHour(number) : Timestamp.formatDate(dayNumber: number)
        case .action: return Int(text).flatMap { Action(rawValue: $0) }?.name ?? text
        case .platform, .osVersion: return text.isEmpty ? nil : text
        case .updateId, .appVersion: return text
        }
      }
      return GroupedRow(keys: values, events: events, installs: installs)
    }
    return ReportQueries.sorted(grouped, by: keys)
  }

  /// The rows of a daily report by `keys`: the keys, then events and
  /// installs. Grouped by date, each row is one day's group, remembered
  /// (`remembered`). Otherwise a group's installs are the union of every
  /// day's sets, asked each time, and its events the sum of each day's
  /// distinct ids (an event's id is kept under its day, `events_local`'s
  /// key), remembered: the union of the ids of a 30-day range took two
  /// thirds of a report's time.
  private func dailyGroups(appId: String, keys: [GroupKey], range: DayRange, test: TestFilter)
    throws(StoreError) -> [[String]]
  {
    // Remembered rows hold the keys in one order (`DailyGroups.canonical`):
    // each key's place there, after the day.
    let canonical = DailyGroups.canonical(keys)
    func inKeysOrder(_ row: [String]) -> [String] {
      keys.map { key in
        key == .date ? row[0] : row[1 + canonical.firstIndex(of: key)!]
      } + row.suffix(2)
    }
    if keys.contains(.date) {
      return try remembered(.groups(keys), appId: appId, range: range, test: test)
        .map(inKeysOrder)
    }
    let sql = keys.map { DailyGroups.column($0).sql }
    // Keys of the install alone: its smaller sets do (schema/clickhouse/0008).
    let installsTable =
      Set(sql).isSubset(of: ["app_version", "platform", "os_version"])
      ? "report_day_installs" : "report_days"
    let scope = scope(appId: appId, range: range, test: test)
    let (installRows, eventRows) = try bothAtOnce(
      { [self] () throws(StoreError) in
        try query(
          """
          SELECT \((sql + ["toUInt64(0)", "uniqExactIfMerge(installs)"]).joined(separator: ", "))
          FROM \(layout.database).\(installsTable) WHERE \(scope)
          \(sql.isEmpty ? "" : "GROUP BY " + sql.joined(separator: ", "))
          """)
      },
      { () throws(StoreError) in
        try remembered(.events(keys), appId: appId, range: range, test: test).map(inKeysOrder)
      })
    return installRows + eventRows
  }

  /// Installs per day and version with their share of the day's installs,
  /// in one box's rows and order (`ReportQueries.adoptionRows`).
  public func adoption(appId: String, range: DayRange, test: TestFilter) throws(StoreError)
    -> [AdoptionRow]
  {
    dayCache.noteAsked(appId)
    let (activeRows, versionRows) = try bothAtOnce(
      { [self] () throws(StoreError) in
        try remembered(.adoption, appId: appId, range: range, test: test)
      },
      { () throws(StoreError) in
        try remembered(.adoptionByVersion, appId: appId, range: range, test: test)
      })
    var versions: [Key: Int] = [:]
    for row in versionRows {
      guard row.count == 3, let day = Int64(row[0]), let installs = Int(row[2]) else { continue }
      versions[Key(day: day, text: row[1]), default: 0] += installs
      if let maxRows, versions.count > maxRows { throw .reportTooLarge(maxRows: maxRows) }
    }
    var active: [Int64: Int] = [:]
    for row in activeRows {
      guard row.count == 2, let day = Int64(row[0]), let installs = Int(row[1]) else { continue }
      active[day, default: 0] += installs
    }
    return ReportQueries.adoptionRows(
      versions: versions.map { ($0.key.day, $0.key.text, $0.value) }, active: active)
  }

  /// A day and a text: a cell of adoption's rows.
  private struct Key: Hashable {
    let day: Int64
    let text: String
  }

  /// The update's funnel (`FunnelFromEvents`), from the events
  /// themselves: each shard holds all of its installs' events, so the
  /// later events of the downloaders are found shard by shard
  /// (`IN` over each server's own `events_local`), asked for while the
  /// impressions and downloads are read, their times by install and
  /// version. Installs are told apart by
  /// sipHash64 of their installId, the width of one box's `installKey`,
  /// stored beside each event (`install_key`, schema/clickhouse/0009): the
  /// downloaders' events are found by that number, not by their text.
  public func funnel(
    appId: String, updateId: String, range: DayRange, test: TestFilter, targetVersion: String?
  ) throws(StoreError) -> FunnelResult {
    let scope = scope(appId: appId, range: range, test: test)
    let update = "update_id = \(Self.quoted(updateId)) AND install_id != ''"
    let (later, matched) = try bothAtOnce(
      { [self] () throws(StoreError) in
        try queryText(
          """
          SELECT install_key, app_version, groupArray(ts_ms)
          FROM \(layout.localEventsOfEveryShard)
          PREWHERE install_key IN (
            SELECT install_key FROM \(layout.database).events_local
            PREWHERE \(update) AND action = 'download' WHERE \(scope))
          WHERE \(scope)
          GROUP BY install_key, app_version
          """)
      },
      { () throws(StoreError) in
        try impressionsAndDownloads(scope: scope, update: update, targetVersion: targetVersion)
      })
    var funnel = matched
    // Read from the text's bytes: a String a field was most of the node's
    // work. An install's times on a version come as an array: [t1,t2,...].
    var times: [Int64] = []
    TabSeparatedRows.forEachRow(in: later) { fields, escaped in
      guard fields.count == 3, let install = TabSeparatedRows.unsigned(fields[0]) else { return }
      times.removeAll(keepingCapacity: true)
      for number in fields[2].split(whereSeparator: { Self.isArraySeparator($0) }) {
        if let ts = TabSeparatedRows.signed(UnsafeBufferPointer(rebasing: number)) {
          times.append(ts)
        }
      }
      TabSeparatedRows.withText(fields[1], escaped[1]) { version in
        funnel.events(install: install, at: times, appVersion: version)
      }
    }
    return funnel.result
  }

  /// The funnel with the update's impressions and downloads in, in one
  /// scan of the range, the impressions first: a download is matched to
  /// the install's first impression. PREWHERE reads the other columns only
  /// for the update's rows, where ClickHouse 18.16 moved only the day range
  /// there itself: 0.11 s a funnel over the bench's 30 days against
  /// 0.26-0.30.
  private func impressionsAndDownloads(scope: String, update: String, targetVersion: String?)
    throws(StoreError) -> FunnelFromEvents
  {
    var funnel = FunnelFromEvents(targetVersion: targetVersion)
    var downloads: [(install: UInt64, ts: Int64)] = []
    let text = try queryText(
      """
      SELECT toUInt8(action), install_key, ts_ms, app_version
      FROM \(layout.localEventsOfEveryShard)
      PREWHERE \(update) AND action IN ('impression', 'download')
      WHERE \(scope)
      """)
    TabSeparatedRows.forEachRow(in: text) { fields, escaped in
      guard fields.count == 4, let action = TabSeparatedRows.unsigned(fields[0]),
        let install = TabSeparatedRows.unsigned(fields[1]),
        let ts = TabSeparatedRows.signed(fields[2])
      else { return }
      guard action == 0 else { return downloads.append((install, ts)) }
      TabSeparatedRows.withText(fields[3], escaped[3]) { version in
        funnel.impression(install: install, at: ts, appVersion: version)
      }
    }
    for (install, ts) in downloads { funnel.download(install: install, at: ts) }
    funnel.matchDownloads()
    return funnel
  }

  /// The separators of ClickHouse's text of an array of numbers.
  private static func isArraySeparator(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: ",") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
  }

  /// The hourly rows of one app, range and test filter.
  private func hourScope(appId: String, range: DayRange, test: TestFilter) -> String {
    "app_id = \(Self.quoted(appId)) AND \(Self.testCondition(test))"
      + " AND hour BETWEEN \(range.fromDay * 24) AND \(range.toDay * 24 + 23)"
  }

  private static func testCondition(_ test: TestFilter) -> String {
    switch test {
    case .exclude: "is_test = 0"
    case .only: "is_test = 1"
    case .include: "1"
    }
  }

  /// The rows of one app, range and test filter.
  func scope(appId: String, range: DayRange, test: TestFilter) -> String {
    """
    app_id = \(Self.quoted(appId)) AND \(Self.testCondition(test))
      AND day BETWEEN toDate('\(Timestamp.formatDate(dayNumber: range.fromDay))')
      AND toDate('\(Timestamp.formatDate(dayNumber: range.toDay))')
    """
  }

  /// `sql`'s rows, as tab-separated fields, from the first server that
  /// answers it whole.
  ///
  /// Over a cluster each shard finishes its own aggregation and the rows
  /// of all shards come back as they are (`distributed_group_by_no_merge`):
  /// the callers add them up. That is exact because a shard's distinct ids
  /// and installs are its own (events are sharded by install, or by id
  /// without one), and it lets the shards merge their states side by side
  /// instead of sending them all to one server.
  func query(_ sql: String) throws(StoreError) -> [[String]] {
    TabSeparatedRows.parse(try queryText(sql))
  }

  /// `sql`'s answer as ClickHouse's TabSeparated text (`query`).
  func queryText(_ sql: String) throws(StoreError) -> String {
    do {
      return try layout.fromFirstServer { server throws(ClickHouseError) in
        try server.execute(
          sql + " FORMAT TabSeparated",
          settings: ["skip_unavailable_shards": "0", "distributed_group_by_no_merge": "1"])
      }
    } catch {
      throw .clusterUnavailable(error.description)
    }
  }

  /// A string as a ClickHouse literal: quoted, its backslashes and quotes
  /// escaped. Update ids hold neither (`UpdateID`), but nothing here relies
  /// on it.
  static func quoted(_ text: String) -> String {
    "'"
      + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
        of: "'", with: "\\'") + "'"
  }
}
