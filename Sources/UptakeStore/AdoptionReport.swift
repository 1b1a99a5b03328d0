import UptakeCore

extension ReportQueries {
  /// Installs per day and version (any update, any action) with their share
  /// of the day's installs, sorted by date, then version order.
  public func adoption(appNo: Int64, range: DayRange, test: TestFilter) throws(StoreError)
    -> [AdoptionRow]
  {
    try database.read { () throws(StoreError) -> [AdoptionRow] in
      var versions: [VersionDay: Int] = [:]
      var active: [Int64: Int] = [:]
      let tail = try RollupTail.load(database, appNo: appNo)
      let tailVersions = tail.versionInstalls.filter {
        test.admits(isTest: $0.key.isTest) && (range.fromDay...range.toDay).contains($0.key.day)
      }
      let tailActive = tail.activeInstalls.filter {
        test.admits(isTest: $0.key.isTest) && (range.fromDay...range.toDay).contains($0.key.day)
      }
      if test == .include {
        // An install with test and real events counts once: read the
        // installs of both kinds and count them distinct.
        var versionMembers: [VersionDay: Set<Int64>] = [:]
        var activeMembers: [Int64: Set<Int64>] = [:]
        let members = try database.statement(
          """
          SELECT day, app_version, install_key FROM version_installs
          WHERE app_no = ? AND day BETWEEN ? AND ? AND is_test IN (0, 1)
          """)
        try bindScope(members, appNo: appNo, from: range.fromDay, through: range.toDay)
        while try members.step() {
          versionMembers[
            VersionDay(day: members.int64(0), appVersion: members.string(1)), default: []
          ]
          .insert(members.int64(2))
          activeMembers[members.int64(0), default: []].insert(members.int64(2))
        }
        for (key, installs) in tailVersions {
          versionMembers[VersionDay(day: key.day, appVersion: key.appVersion), default: []]
            .formUnion(installs)
        }
        for (key, installs) in tailActive {
          activeMembers[key.day, default: []].formUnion(installs)
        }
        versions = versionMembers.mapValues(\.count)
        active = activeMembers.mapValues(\.count)
      } else {
        let byVersion = try database.statement(
          """
          SELECT day, app_version, installs FROM daily_versions
          WHERE app_no = ? AND day BETWEEN ? AND ? AND \(test.sqlCondition)
          """)
        try bindScope(byVersion, appNo: appNo, from: range.fromDay, through: range.toDay)
        while try byVersion.step() {
          versions[
            VersionDay(day: byVersion.int64(0), appVersion: byVersion.string(1)), default: 0] +=
            byVersion.int(2)
        }
        let byDay = try database.statement(
          """
          SELECT day, installs FROM daily_active
          WHERE app_no = ? AND day BETWEEN ? AND ? AND \(test.sqlCondition)
          """)
        try bindScope(byDay, appNo: appNo, from: range.fromDay, through: range.toDay)
        while try byDay.step() { active[byDay.int64(0), default: 0] += byDay.int(1) }
        // Unfolded installs count where they are new to the day or version.
        let knownOnVersion = try database.statement(
          """
          SELECT 1 FROM version_installs
          WHERE app_no = ? AND is_test = ? AND day = ? AND app_version = ? AND install_key = ?
          """)
        for (key, installs) in tailVersions {
          for install in installs {
            try knownOnVersion.bind(1, key.appNo)
            try knownOnVersion.bind(2, Int64(key.isTest ? 1 : 0))
            try knownOnVersion.bind(3, key.day)
            try knownOnVersion.bind(4, key.appVersion)
            try knownOnVersion.bind(5, install)
            if try !knownOnVersion.step() {
              versions[VersionDay(day: key.day, appVersion: key.appVersion), default: 0] += 1
            }
            knownOnVersion.reset()
          }
        }
        let knownOnDay = try database.statement(
          "SELECT 1 FROM active_installs WHERE app_no = ? AND is_test = ? AND day = ? AND install_key = ?"
        )
        for (key, installs) in tailActive {
          for install in installs {
            try knownOnDay.bind(1, key.appNo)
            try knownOnDay.bind(2, Int64(key.isTest ? 1 : 0))
            try knownOnDay.bind(3, key.day)
            try knownOnDay.bind(4, install)
            if try !knownOnDay.step() { active[key.day, default: 0] += 1 }
            knownOnDay.reset()
          }
        }
      }
      return versions.compactMap { key, installs -> AdoptionRow? in
        guard installs > 0, let total = active[key.day], total > 0 else { return nil }
        return AdoptionRow(
          day: key.day, appVersion: key.appVersion, installs: installs,
          share: Double(installs) / Double(total))
      }.sorted { lhs, rhs in
        lhs.day != rhs.day
          ? lhs.day < rhs.day : VersionOrder.areInIncreasingOrder(lhs.appVersion, rhs.appVersion)
      }
    }
  }
}

private struct VersionDay: Hashable {
  let day: Int64
  let appVersion: String
}
