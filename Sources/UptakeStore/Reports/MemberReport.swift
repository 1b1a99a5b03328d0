import UptakeCore

extension ReportQueries {
  /// A grouping by `updateId`, `action` or both, without the date: events
  /// from daily_counts, distinct installs from the members of its buckets
  /// (`daily_install_chunks`, the install keys of each update, day and
  /// action, packed), plus the unfolded events. A bucket's members are
  /// exactly the installs of such a group on that day, 8 bytes each; the
  /// dimension rollups, which serve any grouping, hold a row per install,
  /// day and dimension set with every action's hours, and cost more than
  /// twice as much over 90 days (docs/performance.md).
  func groupedFromMembers(appNo: Int64, keys: [GroupKey], range: DayRange, test: TestFilter)
    throws(StoreError) -> [GroupedRow]
  {
    try database.read { () throws(StoreError) -> [GroupedRow] in
      let byUpdate = keys.contains(.updateId)
      let byAction = keys.contains(.action)
      func group(updateId: String, action: Int) -> MemberGroup {
        MemberGroup(updateId: byUpdate ? updateId : nil, action: byAction ? action : nil)
      }
      var events: [MemberGroup: Int] = [:]
      var installs: [MemberGroup: DistinctKeys] = [:]
      func installsOf(_ key: MemberGroup) -> DistinctKeys {
        if let known = installs[key] { return known }
        let made = DistinctKeys()
        installs[key] = made
        return made
      }

      let counts = try database.statement(
        """
        SELECT update_id, action, sum(events) FROM daily_counts
        WHERE app_no = ? AND day BETWEEN ? AND ? AND \(test.sqlCondition)
        GROUP BY update_id, action
        """)
      try bindScope(counts, appNo: appNo, from: range.fromDay, through: range.toDay)
      while try counts.step() {
        events[group(updateId: counts.string(0), action: counts.int(1)), default: 0] +=
          counts.int(2)
        try checkSize(events.count)
      }
      let members = try database.statement(
        """
        SELECT update_id, action, packed FROM daily_install_chunks
        WHERE app_no = ? AND day BETWEEN ? AND ? AND \(test.sqlCondition)
        """)
      try bindScope(members, appNo: appNo, from: range.fromDay, through: range.toDay)
      while try members.step() {
        let keys = installsOf(group(updateId: members.string(0), action: members.int(1)))
        members.withBlob(2) { blob in Int64.forEachPacked(in: blob) { keys.insert($0) } }
        try checkSize(installs.count)
      }

      let tail = try unfoldedTail(appNo: appNo)
      for (bucket, bucketCounts) in tail.daily
      where test.admits(isTest: bucket.isTest) && (range.fromDay...range.toDay).contains(bucket.day)
      {
        let key = group(updateId: bucket.updateId, action: bucket.action.rawValue)
        events[key, default: 0] += bucketCounts.events
        try checkSize(events.count)
        guard let unfolded = tail.dailyInstalls[bucket] else { continue }
        let keys = installsOf(key)
        for install in unfolded.keys { keys.insert(install) }
      }

      return events.map { key, count in
        let texts: [String?] = keys.map { column in
          column == .updateId ? key.updateId : key.action.flatMap { Action(rawValue: $0)?.name }
        }
        return GroupedRow(
          keys: texts, events: count, installs: installs[key]?.distinctCount() ?? 0)
      }
    }
  }

  /// A group of `groupedFromMembers`: the update and the action, each nil
  /// when the grouping does not have it.
  private struct MemberGroup: Hashable {
    let updateId: String?
    let action: Int?
  }
}
