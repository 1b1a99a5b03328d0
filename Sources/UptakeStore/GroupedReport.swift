import UptakeCore

extension ReportQueries {
  /// Events and distinct installs grouped by `keys`, sorted by the keys in
  /// order: versions in version order, everything else in text order.
  ///
  /// Daily groupings of date, updateId and action read the rollups: the
  /// bucket counts directly when all three are asked for, otherwise the
  /// installs behind them, so distinct counts stay exact across merged
  /// buckets. Hourly groupings, and groupings by appVersion, platform or
  /// osVersion, read the dimension rollups (`groupedFromDimensions`).
  public func grouped(
    appNo: Int64, keys: [GroupKey], granularity: Granularity, range: DayRange, test: TestFilter
  ) throws(StoreError) -> [GroupedRow] {
    let rollupKeys: Set<GroupKey> = [.date, .updateId, .action]
    let hourly = granularity == .hour && keys.contains(.date)
    let rows =
      try Set(keys).isSubset(of: rollupKeys) && !hourly
      ? groupedFromRollups(appNo: appNo, keys: keys, range: range, test: test)
      : groupedFromDimensions(
        appNo: appNo, keys: keys, granularity: granularity, range: range, test: test)
    return rows.sorted { Self.precedes($0.keys, $1.keys, keys) }
  }

  private struct Group {
    var events = 0
    var installs = 0
    var members = InstallSet()
  }

  private func groupedFromRollups(
    appNo: Int64, keys: [GroupKey], range: DayRange, test: TestFilter
  ) throws(StoreError) -> [GroupedRow] {
    // Each bucket holds one flag's installs; under `include` an install with
    // both kinds of events must count once, so read the installs instead.
    let bucketCountsSuffice = Set(keys).count == 3 && test != .include

    func project(_ updateId: String, _ day: Int64, _ action: Int) -> [String?] {
      keys.map { key in
        switch key {
        case .date: Timestamp.formatDate(dayNumber: day)
        case .updateId: updateId
        case .action: Action(rawValue: action)?.name
        default: nil
        }
      }
    }

    return try database.read { () throws(StoreError) -> [GroupedRow] in
      var groups: [[String?]: Group] = [:]
      let statement = try database.statement(
        """
        SELECT update_id, day, action, sum(events), sum(installs) FROM daily_counts
        WHERE app_no = ? AND day BETWEEN ? AND ? AND \(test.sqlCondition)
        GROUP BY update_id, day, action
        """)
      try bindScope(statement, appNo: appNo, from: range.fromDay, through: range.toDay)
      while try statement.step() {
        let key = project(statement.string(0), statement.int64(1), statement.int(2))
        groups[key, default: Group()].events += statement.int(3)
        groups[key, default: Group()].installs += statement.int(4)
      }
      if !bucketCountsSuffice {
        let installs = try database.statement(
          """
          SELECT update_id, day, action, install_key FROM daily_installs
          WHERE app_no = ? AND day BETWEEN ? AND ? AND \(test.sqlCondition)
          """)
        try bindScope(installs, appNo: appNo, from: range.fromDay, through: range.toDay)
        while try installs.step() {
          let key = project(installs.string(0), installs.int64(1), installs.int(2))
          groups[key, default: Group()].members.insert(installs.int64(3))
        }
      }

      let tail = try RollupTail.load(database, appNo: appNo)
      let exists = try database.statement(
        """
        SELECT 1 FROM daily_installs WHERE app_no = ? AND is_test = ? AND update_id = ? AND day = ?
          AND action = ? AND install_key = ?
        """)
      for (bucket, bucketCounts) in tail.daily
      where test.admits(isTest: bucket.isTest) && (range.fromDay...range.toDay).contains(bucket.day)
      {
        let key = project(bucket.updateId, bucket.day, bucket.action.rawValue)
        groups[key, default: Group()].events += bucketCounts.events
        let tailMembers = tail.dailyInstalls[bucket]?.keys.map { $0 } ?? []
        if !bucketCountsSuffice {
          for install in tailMembers { groups[key, default: Group()].members.insert(install) }
          continue
        }
        // Installs new to the bucket: not among those folded already.
        for install in tailMembers {
          try exists.bind(1, bucket.appNo)
          try exists.bind(2, Int64(bucket.isTest ? 1 : 0))
          try exists.bind(3, bucket.updateId)
          try exists.bind(4, bucket.day)
          try exists.bind(5, Int64(bucket.action.rawValue))
          try exists.bind(6, install)
          if try !exists.step() { groups[key, default: Group()].installs += 1 }
          exists.reset()
        }
      }
      return groups.map { key, group in
        GroupedRow(
          keys: key, events: group.events,
          installs: bucketCountsSuffice ? group.installs : group.members.count)
      }
    }
  }

  /// `YYYY-MM-DDTHH` for an hour number.
  static func formatHour(_ hour: Int64) -> String {
    let day = Timestamp.formatDate(dayNumber: hour >= 0 ? hour / 24 : (hour - 23) / 24)
    let hourOfDay = ((hour % 24) + 24) % 24
    return day + (hourOfDay < 10 ? "T0" : "T") + String(hourOfDay)
  }
}
