import UptakeCore

extension ReportQueries {
  /// The prompt-to-upgrade funnel of one update over the events in the
  /// range. `targetVersion` is the configured latestVersion, when the app's
  /// configuration names one: an upgrade must then reach at least it.
  ///
  /// Impressions and downloads come from `daily_installs` (each install's
  /// first and last event of the day), upgrades from `version_changes` (each
  /// time an install was first seen on a version above the one before), read
  /// for the versions the cohort's impressions were on. Two approximations
  /// follow, both for event orders the apps do not produce: a download on the
  /// day of the first impression but before it, with another after it, is
  /// taken at that day's last download; and an install that moved to another
  /// version between its impression and its download is seen upgrading only
  /// by its unfolded events.
  public func funnel(
    appNo: Int64, updateId: String, range: DayRange, test: TestFilter, targetVersion: String?
  ) throws(StoreError) -> FunnelResult {
    let target = targetVersion.flatMap(Version.init)
    // Versions repeat across thousands of installs: parse each text once.
    var versions = VersionCache()
    func isUpgrade(_ appVersion: String, from impressionVersion: String) -> Bool {
      guard let reached = versions.version(appVersion) else { return false }
      if let target { return reached >= target }
      guard let base = versions.version(impressionVersion) else { return false }
      return reached > base
    }

    return try database.read { () throws(StoreError) -> FunnelResult in
      // First impressions in the range, folded and not, then the first
      // download at or after each: two passes, so downloads need no lists.
      var firstImpression: [Int64: (ts: Int64, version: String)] = [:]
      let tail = try RollupTail.load(database, appNo: appNo)
      var tailByInstall: [Int64: [RollupEvent]] = [:]
      for event in tail.events
      where test.admits(isTest: event.isTest) && event.timestampMs >= range.startMs
        && event.timestampMs < range.endMs
      {
        guard let install = event.installKey else { continue }
        tailByInstall[install, default: []].append(event)
      }
      let rows = try database.statement(
        """
        SELECT install_key, first_ts, first_version, last_ts FROM daily_installs
        WHERE app_no = ? AND day BETWEEN ? AND ? AND \(test.sqlCondition) AND update_id = ?
          AND action = ?
        """)
      try bindScope(rows, appNo: appNo, from: range.fromDay, through: range.toDay)
      try rows.bind(4, updateId)
      try rows.bind(5, Int64(Action.impression.rawValue))
      while try rows.step() {
        let install = rows.int64(0)
        let ts = rows.int64(1)
        if ts < firstImpression[install]?.ts ?? .max {
          firstImpression[install] = (ts, rows.string(2))
        }
      }
      rows.reset()
      for (install, events) in tailByInstall {
        for event in events
        where event.updateId == updateId && event.action == .impression
          && event.timestampMs < firstImpression[install]?.ts ?? .max
        {
          firstImpression[install] = (event.timestampMs, event.appVersion)
        }
      }
      var downloadTs: [Int64: Int64] = [:]
      func download(_ install: Int64, first: Int64, last: Int64) {
        guard let impression = firstImpression[install] else { return }
        let at = first >= impression.ts ? first : (last >= impression.ts ? last : Int64.max)
        if at < downloadTs[install] ?? .max { downloadTs[install] = at }
      }
      try bindScope(rows, appNo: appNo, from: range.fromDay, through: range.toDay)
      try rows.bind(4, updateId)
      try rows.bind(5, Int64(Action.download.rawValue))
      while try rows.step() { download(rows.int64(0), first: rows.int64(1), last: rows.int64(3)) }
      rows.reset()
      for (install, events) in tailByInstall {
        for event in events where event.updateId == updateId && event.action == .download {
          download(install, first: event.timestampMs, last: event.timestampMs)
        }
      }

      // Installs that downloaded, grouped by the version of their first
      // impression: upgrades are read per version left.
      var downloadersByVersion: [String: [Int64: (impressionTs: Int64, downloadTs: Int64)]] = [:]
      for (install, at) in downloadTs {
        let impression = firstImpression[install]!
        downloadersByVersion[impression.version, default: [:]][install] = (impression.ts, at)
      }
      var upgradeTs: [Int64: Int64] = [:]
      let changes = try database.statement(
        """
        SELECT install_key, to_version, ts FROM version_changes
        WHERE app_no = ? AND \(test.sqlCondition) AND from_version = ? AND day BETWEEN ? AND ?
        """)
      // Each install's climb from its impression's version: without a
      // target the first change is an upgrade; with one, a change to a
      // version still below it is followed to the changes away from that
      // version, and so on (each step goes higher, so the climb ends).
      var climbing = downloadersByVersion.mapValues { $0.mapValues(\.downloadTs) }
      while !climbing.isEmpty {
        var next: [String: [Int64: Int64]] = [:]
        for (version, installs) in climbing {
          let firstDay = installs.values.map { Timestamp.dayNumber(ms: $0) }.min()!
          try changes.bind(1, appNo)
          try changes.bind(2, version)
          try changes.bind(3, firstDay)
          try changes.bind(4, range.toDay)
          var stepTs: [Int64: (ts: Int64, version: String)] = [:]
          while try changes.step() {
            let install = changes.int64(0)
            let ts = changes.int64(2)
            guard let since = installs[install], ts > since, ts < range.endMs,
              ts < upgradeTs[install] ?? .max
            else { continue }
            let reached = changes.string(1)
            if isUpgrade(reached, from: version) {
              upgradeTs[install] = ts
            } else if target != nil, ts < stepTs[install]?.ts ?? .max {
              stepTs[install] = (ts, reached)
            }
          }
          changes.reset()
          for (install, step) in stepTs where upgradeTs[install] == nil {
            next[step.version, default: [:]][install] = step.ts
          }
        }
        climbing = next
      }
      // Unfolded events: any later event on a high enough version.
      for (impressionVersion, installs) in downloadersByVersion {
        for (install, funnel) in installs {
          for event in tailByInstall[install] ?? []
          where event.timestampMs > funnel.downloadTs
            && event.timestampMs < upgradeTs[install] ?? .max
            && isUpgrade(event.appVersion, from: impressionVersion)
          {
            upgradeTs[install] = event.timestampMs
          }
        }
      }
      let hoursToUpgrade = upgradeTs.map { install, ts in
        Double(ts - firstImpression[install]!.ts) / 3_600_000
      }
      let downloaded = downloadersByVersion.values.reduce(0) { $0 + $1.count }
      return FunnelResult(
        impressions: firstImpression.count, downloads: downloaded, upgraded: hoursToUpgrade.count,
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
