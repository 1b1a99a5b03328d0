import UptakeCore

extension ReportQueries {
  /// Installs per day and version (any update, any action) with their share
  /// of the day's installs, sorted by date, then version order.
  public func adoption(appNo: Int64, range: DayRange, test: TestFilter) throws(StoreError)
    -> [AdoptionRow]
  {
    try database.read { () throws(StoreError) -> [AdoptionRow] in
      let tail = try unfoldedTail(appNo: appNo)
      let counts =
        test == .include
        ? try distinctInstallCounts(
          appNo: appNo, range: range, tailSeen: Self.seen(in: tail, range: range, test: test))
        : try foldedInstallCounts(appNo: appNo, range: range, test: test, tail: tail)
      return counts.rows()
    }
  }

  /// The unfolded sightings (install, day, version) the range and filter
  /// admit.
  private static func seen(in tail: RollupDelta, range: DayRange, test: TestFilter)
    -> [RollupDelta.SeenKey]
  {
    tail.seen.keys.filter {
      test.admits(isTest: $0.isTest) && (range.fromDay...range.toDay).contains($0.day)
    }
  }

  /// With `test=include`: an install with test and real events counts
  /// once, so the installs of both kinds are read and counted distinct.
  private func distinctInstallCounts(
    appNo: Int64, range: DayRange, tailSeen: [RollupDelta.SeenKey]
  ) throws(StoreError) -> AdoptionCounts {
    var versionMembers: [AdoptionCell: InstallSet] = [:]
    var activeMembers: [Int64: InstallSet] = [:]
    func add(_ day: Int64, _ appVersion: String, _ install: Int64) {
      versionMembers[AdoptionCell(day: day, appVersion: appVersion), default: InstallSet()]
        .insert(
          install)
      activeMembers[day, default: InstallSet()].insert(install)
    }
    let members = try database.statement(
      """
      SELECT day, app_version, install_key FROM install_days
      WHERE app_no = ? AND day BETWEEN ? AND ? AND is_test IN (0, 1)
      """)
    try bindScope(members, appNo: appNo, from: range.fromDay, through: range.toDay)
    var held = 0
    while try members.step() {
      add(members.int64(0), members.string(1), members.int64(2))
      held += 1
      if held & 1023 == 0 {
        try checkSize(versionMembers.count)
        try checkInstalls(activeMembers.values.reduce(0) { $0 + $1.count })
      }
    }
    for key in tailSeen { add(key.day, key.appVersion, key.installKey) }
    // After the unfolded installs too: before they are folded, they may be
    // all the rows there are.
    try checkSize(versionMembers.count)
    return AdoptionCounts(
      versions: versionMembers.mapValues(\.count), active: activeMembers.mapValues(\.count))
  }

  /// With one test flag: the folded counts, and the unfolded installs
  /// where they are new. Also what a grouping by date and app version
  /// counts as its installs (`groupedFromDimensions`). Called inside a
  /// read transaction, with its tail.
  func foldedInstallCounts(
    appNo: Int64, range: DayRange, test: TestFilter, tail: RollupDelta
  ) throws(StoreError) -> AdoptionCounts {
    precondition(test != .include, "an install of both flags would count twice")
    let tailSeen = Self.seen(in: tail, range: range, test: test)
    var counts = AdoptionCounts()
    let byVersion = try database.statement(
      """
      SELECT day, app_version, installs FROM daily_versions
      WHERE app_no = ? AND day BETWEEN ? AND ? AND \(test.sqlCondition)
      """)
    try bindScope(byVersion, appNo: appNo, from: range.fromDay, through: range.toDay)
    while try byVersion.step() {
      counts.versions[
        AdoptionCell(day: byVersion.int64(0), appVersion: byVersion.string(1)), default: 0] +=
        byVersion.int(2)
      try checkSize(counts.versions.count)
    }
    let byDay = try database.statement(
      """
      SELECT day, installs FROM daily_active
      WHERE app_no = ? AND day BETWEEN ? AND ? AND \(test.sqlCondition)
      """)
    try bindScope(byDay, appNo: appNo, from: range.fromDay, through: range.toDay)
    while try byDay.step() { counts.active[byDay.int64(0), default: 0] += byDay.int(1) }
    try addUnfoldedInstalls(tailSeen, to: &counts)
    try checkSize(counts.versions.count)
    return counts
  }

  /// Unfolded installs count where they are new to the version or the
  /// day: the folded versions of each unfolded install and day decide.
  private func addUnfoldedInstalls(
    _ tailSeen: [RollupDelta.SeenKey], to counts: inout AdoptionCounts
  ) throws(StoreError) {
    let folded = try database.statement(
      """
      SELECT app_version FROM install_days
      WHERE app_no = ? AND is_test = ? AND install_key = ? AND day = ?
      """)
    var tailVersionsByInstallDay: [RollupDelta.SeenKey: [String]] = [:]
    for key in tailSeen {
      let installDay = RollupDelta.SeenKey(
        appNo: key.appNo, isTest: key.isTest, installKey: key.installKey, day: key.day,
        appVersion: "")
      tailVersionsByInstallDay[installDay, default: []].append(key.appVersion)
    }
    for (installDay, tailVersions) in tailVersionsByInstallDay {
      try folded.bind(1, installDay.appNo)
      try folded.bind(2, Int64(installDay.isTest ? 1 : 0))
      try folded.bind(3, installDay.installKey)
      try folded.bind(4, installDay.day)
      var foldedVersions = Set<String>()
      while try folded.step() { foldedVersions.insert(folded.string(0)) }
      folded.reset()
      if foldedVersions.isEmpty { counts.active[installDay.day, default: 0] += 1 }
      for appVersion in tailVersions where !foldedVersions.contains(appVersion) {
        counts.versions[AdoptionCell(day: installDay.day, appVersion: appVersion), default: 0] += 1
      }
    }
  }
}

/// Installs per version and day, and per day on any version.
struct AdoptionCounts {
  var versions: [AdoptionCell: Int] = [:]
  var active: [Int64: Int] = [:]

  func rows() -> [AdoptionRow] {
    ReportQueries.adoptionRows(
      versions: versions.map { ($0.key.day, $0.key.appVersion, $0.value) }, active: active)
  }
}

extension ReportQueries {
  /// Each version's installs of a day with their share of the day's
  /// (`active`), by date, then version order: one box's rows and a
  /// cluster's (`ClusterReports`) alike.
  public static func adoptionRows(
    versions: [(day: Int64, appVersion: String, installs: Int)], active: [Int64: Int]
  ) -> [AdoptionRow] {
    versions.compactMap { day, appVersion, installs -> AdoptionRow? in
      guard installs > 0, let total = active[day], total > 0 else { return nil }
      return AdoptionRow(
        day: day, appVersion: appVersion, installs: installs,
        share: Double(installs) / Double(total))
    }.sorted { lhs, rhs in
      lhs.day != rhs.day
        ? lhs.day < rhs.day : VersionOrder.areInIncreasingOrder(lhs.appVersion, rhs.appVersion)
    }
  }
}

/// A cell of the adoption report: one app version on one day.
struct AdoptionCell: Hashable {
  let day: Int64
  let appVersion: String
}
