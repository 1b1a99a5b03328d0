import UptakeCore

extension ReportQueries {
  /// The prompt-to-upgrade funnel of one update over the events in the
  /// range. `targetVersion` is the configured latestVersion, when the app's
  /// configuration names one: an upgrade must then reach at least it.
  ///
  /// Impressions and downloads come from `daily_installs` (each install's
  /// first and last event of the day), upgrades from `install_days` (the
  /// first time each install was seen on each version each day). Two
  /// approximations follow, both for event orders the apps do not produce: a
  /// download on the day of the first impression but before it, with another
  /// after it, is taken at that day's last download; and on the day of the
  /// download, a higher version seen before the download does not count as
  /// an upgrade on that day.
  public func funnel(
    appNo: Int64, updateId: String, range: DayRange, test: TestFilter, targetVersion: String?
  ) throws(StoreError) -> FunnelResult {
    let target = targetVersion.flatMap(Version.init)
    // Versions repeat across thousands of installs: parse each text once.
    var parsed: [String: Version?] = [:]
    func version(_ text: String) -> Version? {
      if let known = parsed[text] { return known }
      let version = Version(text)
      parsed[text] = version
      return version
    }
    func isUpgrade(_ appVersion: String, from impressionVersion: String) -> Bool {
      guard let reached = version(appVersion) else { return false }
      if let target { return reached >= target }
      guard let base = version(impressionVersion) else { return false }
      return reached > base
    }

    return try database.read { () throws(StoreError) -> FunnelResult in
      var firstImpression: [Int64: (ts: Int64, version: String)] = [:]
      var downloads: [Int64: [(first: Int64, last: Int64)]] = [:]
      let rows = try database.statement(
        """
        SELECT action, install_key, first_ts, first_version, last_ts FROM daily_installs
        WHERE app_no = ? AND day BETWEEN ? AND ? AND \(test.sqlCondition) AND update_id = ?
          AND action IN (0, 1)
        """)
      try bindScope(rows, appNo: appNo, from: range.fromDay, through: range.toDay)
      try rows.bind(4, updateId)
      while try rows.step() {
        let install = rows.int64(1)
        if rows.int(0) == Action.impression.rawValue {
          let seen = (rows.int64(2), rows.string(3))
          if seen.0 < firstImpression[install]?.ts ?? .max { firstImpression[install] = seen }
        } else {
          downloads[install, default: []].append((rows.int64(2), rows.int64(4)))
        }
      }

      let tail = try RollupTail.load(database, appNo: appNo)
      var tailByInstall: [Int64: [RollupEvent]] = [:]
      for event in tail.events
      where test.admits(isTest: event.isTest) && event.timestampMs >= range.startMs
        && event.timestampMs < range.endMs
      {
        guard let install = event.installKey else { continue }
        tailByInstall[install, default: []].append(event)
        guard event.updateId == updateId else { continue }
        if event.action == .impression, event.timestampMs < firstImpression[install]?.ts ?? .max {
          firstImpression[install] = (event.timestampMs, event.appVersion)
        } else if event.action == .download {
          downloads[install, default: []].append((event.timestampMs, event.timestampMs))
        }
      }

      let versionsSeen = try database.statement(
        """
        SELECT app_version, first_ts FROM install_days
        WHERE app_no = ? AND \(test.sqlCondition) AND install_key = ? AND day BETWEEN ? AND ?
        """)
      // Installs that downloaded, in key order so the lookups below walk
      // install_days forwards.
      var downloaders:
        [(install: Int64, impression: (ts: Int64, version: String), downloadTs: Int64)] =
          []
      for (install, impression) in firstImpression {
        let downloadTimes = (downloads[install] ?? []).compactMap { day -> Int64? in
          day.first >= impression.ts ? day.first : (day.last >= impression.ts ? day.last : nil)
        }
        if let downloadTs = downloadTimes.min() {
          downloaders.append((install, impression, downloadTs))
        }
      }
      downloaders.sort { $0.install < $1.install }
      var hoursToUpgrade: [Double] = []
      for (install, impression, downloadTs) in downloaders {
        var upgradeTs = Int64.max
        try versionsSeen.bind(1, appNo)
        try versionsSeen.bind(2, install)
        try versionsSeen.bind(3, Timestamp.dayNumber(ms: downloadTs))
        try versionsSeen.bind(4, range.toDay)
        while try versionsSeen.step() {
          let firstTs = versionsSeen.int64(1)
          if firstTs > downloadTs, firstTs < range.endMs, firstTs < upgradeTs,
            isUpgrade(versionsSeen.string(0), from: impression.version)
          {
            upgradeTs = firstTs
          }
        }
        versionsSeen.reset()
        for event in tailByInstall[install] ?? []
        where event.timestampMs > downloadTs && event.timestampMs < upgradeTs
          && isUpgrade(event.appVersion, from: impression.version)
        {
          upgradeTs = event.timestampMs
        }
        if upgradeTs != .max {
          hoursToUpgrade.append(Double(upgradeTs - impression.ts) / 3_600_000)
        }
      }
      return FunnelResult(
        impressions: firstImpression.count, downloads: downloaders.count,
        upgraded: hoursToUpgrade.count,
        medianHoursToUpgrade: Self.median(hoursToUpgrade))
    }
  }

  static func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }
}
