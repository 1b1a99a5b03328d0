import UptakeCore

extension ReportQueries {
  /// Events and distinct installs grouped by `keys`, sorted by the keys in
  /// order: versions in version order, everything else in text order.
  ///
  /// The default grouping (date, updateId, action by day) is daily_counts'
  /// own buckets: their counts are summed directly. A grouping by update,
  /// action or both counts the members of those buckets
  /// (`groupedFromMembers`). A grouping by date and app version counts
  /// adoption's installs by day and version. Any other grouping
  /// merges buckets, so distinct installs must be counted across them: it
  /// reads the dimension rollups (`groupedFromDimensions`), whose presence
  /// rows are ordered by day and so cost in proportion to the range
  /// (distinct installs from the buckets' members, a row per install and
  /// bucket, took seconds at 10M events).
  public func grouped(
    appNo: Int64, keys: [GroupKey], granularity: Granularity, range: DayRange, test: TestFilter
  ) throws(StoreError) -> [GroupedRow] {
    // Each bucket holds one flag's installs; under `include` an install with
    // both kinds of events must count once, so buckets do not suffice.
    let bucketsSuffice =
      Set(keys) == [.date, .updateId, .action] && granularity == .day && test != .include
    // Without the date, the granularity changes nothing, and a grouping by
    // update or action counts the installs of whole buckets.
    let membersSuffice = Set(keys).isSubset(of: [.updateId, .action])
    let rows: [GroupedRow]
    if bucketsSuffice {
      // In the keys' order already.
      return try groupedFromBuckets(appNo: appNo, keys: keys, range: range, test: test)
    } else if membersSuffice {
      rows = try groupedFromMembers(appNo: appNo, keys: keys, range: range, test: test)
    } else {
      rows = try groupedFromDimensions(
        appNo: appNo, keys: keys, granularity: granularity, range: range, test: test)
    }
    return Self.sorted(rows, by: keys)
  }

  /// daily_counts' buckets, plus the unfolded events: an unfolded install
  /// counts where the bucket's folded installs do not hold it yet. Sorted
  /// here, in the order of `keys`.
  private func groupedFromBuckets(
    appNo: Int64, keys: [GroupKey], range: DayRange, test: TestFilter
  ) throws(StoreError) -> [GroupedRow] {
    return try database.read { () throws(StoreError) -> [GroupedRow] in
      // Grouped by the bucket's own fields, its update id numbered as
      // read, and projected to the keys' texts once per group at the end:
      // keyed and sorted by texts, the groups' hashing and ranking were a
      // quarter of the report over 2,000 groups.
      var updates = TextNumbering()
      var groups: [BucketKey: (events: Int, installs: Int)] = [:]
      let statement = try database.statement(
        """
        SELECT update_id, day, action, sum(events), sum(installs) FROM daily_counts
        WHERE app_no = ? AND day BETWEEN ? AND ? AND \(test.sqlCondition)
        GROUP BY update_id, day, action
        """)
      try bindScope(statement, appNo: appNo, from: range.fromDay, through: range.toDay)
      while try statement.step() {
        let key = BucketKey(
          update: statement.withText(0) { updates.number($0) }, day: statement.int64(1),
          action: statement.int(2))
        groups[key, default: (0, 0)].events += statement.int(3)
        groups[key, default: (0, 0)].installs += statement.int(4)
        try checkSize(groups.count)
      }

      let tail = try unfoldedTail(appNo: appNo)
      let members = try InstallChunks.Reader(database)
      for (bucket, bucketCounts) in tail.daily
      where test.admits(isTest: bucket.isTest) && (range.fromDay...range.toDay).contains(bucket.day)
      {
        let key = BucketKey(
          update: updates.number(bucket.updateId), day: bucket.day,
          action: bucket.action.rawValue)
        groups[key, default: (0, 0)].events += bucketCounts.events
        try checkSize(groups.count)
        let installs = Set(tail.dailyInstalls[bucket]?.keys.map { $0 } ?? [])
        guard !installs.isEmpty else { continue }
        let folded = InstallChunks.Bucket(
          appNo: bucket.appNo, isTest: bucket.isTest, updateId: bucket.updateId, day: bucket.day,
          action: bucket.action.rawValue)
        // The tail's installs the folded members do not hold yet.
        let known = try members.members(of: folded, among: installs)
        groups[key, default: (0, 0)].installs += installs.count - known.count
      }
      return Self.rows(groups, keys: keys, updates: updates)
    }
  }

  /// The groups in the order of `keys`, as `sorted(_:by:)` orders rows:
  /// dates are in day order, update ids in byte order, actions in the byte
  /// order of their names, an unknown action (none) first.
  private static func rows(
    _ groups: [BucketKey: (events: Int, installs: Int)], keys: [GroupKey],
    updates: TextNumbering
  ) -> [GroupedRow] {
    let updateRanks = updates.byteOrderRanks()
    // An action's rank by its number: its name's place in byte order, from
    // 1; 0 for a number no action has (its text is none).
    var actionRanks = [Int](
      repeating: 0, count: (Action.allCases.map(\.rawValue).max() ?? 0) + 1)
    let byName = Action.allCases.sorted { $0.name.precedesInByteOrder($1.name) }
    for (rank, action) in byName.enumerated() { actionRanks[action.rawValue] = rank + 1 }
    func actionRank(_ raw: Int) -> Int { actionRanks.indices.contains(raw) ? actionRanks[raw] : 0 }
    func precedes(_ left: BucketKey, _ right: BucketKey) -> Bool {
      for key in keys {
        switch key {
        case .date where left.day != right.day: return left.day < right.day
        case .updateId where left.update != right.update:
          return updateRanks[Int(left.update)] < updateRanks[Int(right.update)]
        case .action where left.action != right.action:
          return actionRank(left.action) < actionRank(right.action)
        default: continue
        }
      }
      return false
    }
    var dates: [Int64: String] = [:]
    return groups.sorted { precedes($0.key, $1.key) }.map { bucket, group in
      let texts: [String?] = keys.map { key in
        switch key {
        case .date:
          if let date = dates[bucket.day] { return date }
          let date = Timestamp.formatDate(dayNumber: bucket.day)
          dates[bucket.day] = date
          return date
        case .updateId: return updates.texts[Int(bucket.update)]
        default: return Action(rawValue: bucket.action)?.name
        }
      }
      return GroupedRow(keys: texts, events: group.events, installs: group.installs)
    }
  }

  /// A bucket of daily_counts, across test flags: the default grouping's
  /// row, its update id numbered (`TextNumbering`).
  private struct BucketKey: Hashable {
    let update: Int32
    let day: Int64
    let action: Int
  }

  /// `YYYY-MM-DDTHH` for an hour number.
  public static func formatHour(_ hour: Int64) -> String {
    let day = Timestamp.formatDate(dayNumber: hour >= 0 ? hour / 24 : (hour - 23) / 24)
    let hourOfDay = ((hour % 24) + 24) % 24
    return day + (hourOfDay < 10 ? "T0" : "T") + String(hourOfDay)
  }
}
