import UptakeCore

extension ReportQueries {
  /// Every update of the app with events in the range, by updateId.
  public func updates(appNo: Int64, range: DayRange, test: TestFilter) throws(StoreError)
    -> [UpdateSummary]
  {
    try database.read { () throws(StoreError) -> [UpdateSummary] in
      var byUpdate: [String: (events: [Int], first: Int64, last: Int64)] = [:]
      func add(_ updateId: String, _ action: Int, _ events: Int, _ first: Int64, _ last: Int64) {
        var entry = byUpdate[updateId] ?? ([0, 0, 0, 0], .max, .min)
        entry.events[action] += events
        entry.first = min(entry.first, first)
        entry.last = max(entry.last, last)
        byUpdate[updateId] = entry
      }
      let statement = try database.statement(
        """
        SELECT update_id, action, sum(events), min(first_ts), max(last_ts) FROM daily_counts
        WHERE app_no = ? AND day BETWEEN ? AND ? AND \(test.sqlCondition)
        GROUP BY update_id, action
        """)
      try bindScope(statement, appNo: appNo, from: range.fromDay, through: range.toDay)
      while try statement.step() {
        add(
          statement.string(0), statement.int(1), statement.int(2), statement.int64(3),
          statement.int64(4))
        try checkSize(byUpdate.count)
      }
      let tail = try unfoldedTail(appNo: appNo)
      for (key, counts) in tail.daily
      where test.admits(isTest: key.isTest) && (range.fromDay...range.toDay).contains(key.day) {
        add(key.updateId, key.action.rawValue, counts.events, counts.firstTs, counts.lastTs)
        try checkSize(byUpdate.count)
      }
      return UpdateSummary.sorted(byUpdate)
    }
  }

  /// One update's events and distinct installs by action over the range, and
  /// its events by day. An update without events in the range has zero
  /// counts and no days.
  public func update(appNo: Int64, updateId: String, range: DayRange, test: TestFilter)
    throws(StoreError) -> UpdateDetail
  {
    try database.read { () throws(StoreError) -> UpdateDetail in
      var events = Array(repeating: 0, count: Action.allCases.count)
      var installs = Array(repeating: InstallSet(), count: Action.allCases.count)
      var byDay: [Int64: [Int]] = [:]
      let counts = try database.statement(
        """
        SELECT day, action, sum(events) FROM daily_counts
        WHERE app_no = ? AND day BETWEEN ? AND ? AND \(test.sqlCondition) AND update_id = ?
        GROUP BY day, action
        """)
      try bindScope(counts, appNo: appNo, from: range.fromDay, through: range.toDay)
      try counts.bind(4, updateId)
      while try counts.step() {
        byDay[counts.int64(0), default: [0, 0, 0, 0]][counts.int(1)] += counts.int(2)
        events[counts.int(1)] += counts.int(2)
      }
      // Distinct installs from the packed members (schema/0007): a few
      // hundred rows where bucket_members has one per install and day.
      let members = try database.statement(
        """
        SELECT action, packed FROM daily_install_chunks
        WHERE app_no = ? AND day BETWEEN ? AND ? AND \(test.sqlCondition) AND update_id = ?
        """)
      try bindScope(members, appNo: appNo, from: range.fromDay, through: range.toDay)
      try members.bind(4, updateId)
      while try members.step() {
        let action = members.int(0)
        members.withBlob(1) { blob in
          Int64.forEachPacked(in: blob) { installs[action].insert($0) }
        }
        try checkInstalls(installs[action].count)
      }

      let tail = try unfoldedTail(appNo: appNo)
      for (key, bucket) in tail.daily
      where key.updateId == updateId && test.admits(isTest: key.isTest)
        && (range.fromDay...range.toDay).contains(key.day)
      {
        byDay[key.day, default: [0, 0, 0, 0]][key.action.rawValue] += bucket.events
        events[key.action.rawValue] += bucket.events
        if let members = tail.dailyInstalls[key] {
          for install in members.keys { installs[key.action.rawValue].insert(install) }
          try checkInstalls(installs[key.action.rawValue].count)
        }
      }
      let actions = Action.allCases.map {
        ActionCounts(events: events[$0.rawValue], installs: installs[$0.rawValue].count)
      }
      let days = byDay.sorted { $0.key < $1.key }.map { (day: $0.key, events: $0.value) }
      return UpdateDetail(updateId: updateId, actions: actions, days: days)
    }
  }
}
