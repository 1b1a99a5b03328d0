import UptakeCore

@testable import UptakeStore

/// Every report, computed by brute force from events held in memory, straight
/// from the contract's definitions. It is the specification the store's
/// queries (rollups plus the events not yet folded) are checked against, so
/// it is deliberately naive: no incremental state, no shared work between
/// reports beyond picking the events in scope, nothing that depends on the
/// order the events were added in.
struct ReportReference {
  private(set) var events: [(appNo: Int64, event: Event)] = []

  /// Adds events the store accepted (each exactly once: duplicates are the
  /// store's business, not the reports').
  mutating func add(_ new: [(appNo: Int64, event: Event)]) {
    events += new
  }

  /// The events a report counts: the app's, inside the range, kept or
  /// dropped by their test flag.
  func scope(appNo: Int64, range: DayRange, test: TestFilter) -> ReferenceScope {
    ReferenceScope(
      events: events.filter { $0.appNo == appNo }.map(\.event).filter { event in
        let inRange = event.timestampMs >= range.startMs && event.timestampMs < range.endMs
        switch test {
        case .exclude: return inRange && !event.isTest
        case .include: return inRange
        case .only: return inRange && event.isTest
        }
      })
  }
}

/// The reports over one app's events in one range under one test filter.
struct ReferenceScope {
  let events: [Event]

  /// The events of each install, in the order they were added; events
  /// without an install belong to none. Deliberately not sorted: a sort
  /// by time leaves events of one millisecond in an order that depends on
  /// the input (`sorted` is not stable), so the funnel picks each step's
  /// event as an explicit minimum instead.
  private let timelines: [[Event]]

  init(events: [Event]) {
    self.events = events
    var byInstall: [String: [Event]] = [:]
    for event in events {
      guard let installId = event.installId else { continue }
      byInstall[installId, default: []].append(event)
    }
    timelines = Array(byInstall.values)
  }

  // MARK: GET /v1/updates

  /// Every update with events, in text order of updateId: first and last
  /// event time, and events by action.
  func updates() -> [UpdateSummary] {
    let byUpdate = Dictionary(grouping: events, by: \.updateId)
    return byUpdate.keys.sorted(by: textOrder).map { updateId in
      let updateEvents = byUpdate[updateId]!
      return UpdateSummary(
        updateId: updateId,
        firstSeenMs: updateEvents.map(\.timestampMs).min()!,
        lastSeenMs: updateEvents.map(\.timestampMs).max()!,
        events: Action.allCases.map { action in
          updateEvents.filter { $0.action == action }.count
        })
    }
  }

  // MARK: GET /v1/updates/{updateId}

  /// Events and distinct installs per action over the whole range, and
  /// event counts by action per date with events.
  func update(_ updateId: String) -> UpdateDetail {
    let updateEvents = events.filter { $0.updateId == updateId }
    let actions = Action.allCases.map { action in
      let actionEvents = updateEvents.filter { $0.action == action }
      return ActionCounts(
        events: actionEvents.count,
        installs: Set(actionEvents.compactMap(\.installId)).count)
    }
    let byDay = Dictionary(grouping: updateEvents) { Timestamp.dayNumber(ms: $0.timestampMs) }
    let days = byDay.keys.sorted().map { day in
      (
        day: day,
        events: Action.allCases.map { action in byDay[day]!.filter { $0.action == action }.count }
      )
    }
    return UpdateDetail(updateId: updateId, actions: actions, days: days)
  }

  // MARK: GET /v1/report

  /// Events and distinct installs per combination of key values, sorted by
  /// the keys in the order given.
  func grouped(_ keys: [GroupKey], _ granularity: Granularity) -> [GroupedRow] {
    let byKeys = Dictionary(grouping: events) { event in
      keys.map { Self.value(of: $0, in: event, granularity) }
    }
    return byKeys.map { values, groupEvents in
      GroupedRow(
        keys: values, events: groupEvents.count,
        installs: Set(groupEvents.compactMap(\.installId)).count)
    }.sorted { Self.precedes($0.keys, $1.keys, keys) }
  }

  /// The value an event has for a group key; nil when it has none.
  static func value(of key: GroupKey, in event: Event, _ granularity: Granularity) -> String? {
    switch key {
    case .date:
      let day = Timestamp.dayNumber(ms: event.timestampMs)
      let date = Timestamp.formatDate(dayNumber: day)
      guard granularity == .hour else { return date }
      let hour = (event.timestampMs - day * 86_400_000) / 3_600_000
      return date + "T" + (hour < 10 ? "0" : "") + String(hour)
    case .updateId: return event.updateId
    case .action: return event.action.name
    case .appVersion: return event.appVersion
    case .platform: return event.platform?.rawValue
    case .osVersion: return event.osVersion
    }
  }

  /// Key by key: a missing value first, versions in version order, the rest
  /// in text order.
  static func precedes(_ lhs: [String?], _ rhs: [String?], _ keys: [GroupKey]) -> Bool {
    for (index, key) in keys.enumerated() where lhs[index] != rhs[index] {
      guard let left = lhs[index] else { return true }
      guard let right = rhs[index] else { return false }
      return key.isVersion ? VersionOrder.areInIncreasingOrder(left, right) : textOrder(left, right)
    }
    return false
  }

  // MARK: GET /v1/adoption

  /// Per date and appVersion, installs seen on that version that day (any
  /// update, any action) and their share of the installs seen that day.
  /// Events without an install count nowhere here.
  func adoption() -> [AdoptionRow] {
    var installsByDay: [Int64: Set<String>] = [:]
    var installsByDayAndVersion: [Int64: [String: Set<String>]] = [:]
    for event in events {
      guard let installId = event.installId else { continue }
      let day = Timestamp.dayNumber(ms: event.timestampMs)
      installsByDay[day, default: []].insert(installId)
      installsByDayAndVersion[day, default: [:]][event.appVersion, default: []].insert(installId)
    }
    return installsByDay.keys.sorted().flatMap { day in
      let dayInstalls = installsByDay[day]!.count
      let versions = installsByDayAndVersion[day]!
      return versions.keys.sorted(by: VersionOrder.areInIncreasingOrder).map { version in
        AdoptionRow(
          day: day, appVersion: version, installs: versions[version]!.count,
          share: Double(versions[version]!.count) / Double(dayInstalls))
      }
    }
  }

  // MARK: GET /v1/updates/{updateId}/funnel

  /// Installs from first impression, to a download at or after it, to being
  /// seen after that download on a higher version than at the first
  /// impression (at least `targetVersion` when given); median hours from the
  /// first impression to the first such sighting.
  ///
  /// The first impression is the install's earliest; when several share
  /// that millisecond, the one on the lowest app version (`VersionOrder`:
  /// version order, then text) counts. Client clocks are coarse and get
  /// adjusted, so an install can stamp two impressions with one
  /// millisecond, and without a rule the version an upgrade is measured
  /// from would be whichever arrived first; the product is to follow the
  /// same rule. Every other step depends only on times (the first download
  /// at or after the impression, the first qualifying event strictly after
  /// that download), so no step depends on the order the events were added
  /// in.
  func funnel(_ updateId: String, targetVersion: String?) -> FunnelResult {
    var impressions = 0
    var downloads = 0
    var hoursToUpgrade: [Double] = []
    for timeline in timelines {
      guard
        let shown = timeline.filter({ $0.updateId == updateId && $0.action == .impression })
          .min(by: Self.isFirstImpression)
      else { continue }
      impressions += 1
      guard
        let downloadedMs = timeline.filter({
          $0.updateId == updateId && $0.action == .download
            && $0.timestampMs >= shown.timestampMs
        }).map(\.timestampMs).min()
      else { continue }
      downloads += 1
      let shownVersion = Version(shown.appVersion)!
      let target = targetVersion.map { Version($0)! }
      guard
        let upgradedMs = timeline.filter({ event in
          guard event.timestampMs > downloadedMs, let version = Version(event.appVersion)
          else { return false }
          if let target { return version >= target }
          return version > shownVersion
        }).map(\.timestampMs).min()
      else { continue }
      hoursToUpgrade.append(Double(upgradedMs - shown.timestampMs) / 3_600_000)
    }
    return FunnelResult(
      impressions: impressions, downloads: downloads, upgraded: hoursToUpgrade.count,
      medianHoursToUpgrade: Self.median(hoursToUpgrade))
  }

  /// Whether impression `lhs` comes before `rhs` as an install's first
  /// impression: earlier, or in the same millisecond on a lower version
  /// (`VersionOrder`, a total order on the texts, so the minimum is one
  /// version whatever the order of the candidates).
  static func isFirstImpression(_ lhs: Event, _ rhs: Event) -> Bool {
    guard lhs.timestampMs == rhs.timestampMs else { return lhs.timestampMs < rhs.timestampMs }
    return VersionOrder.areInIncreasingOrder(lhs.appVersion, rhs.appVersion)
  }

  /// The middle value, or the mean of the two middle values; nil for none.
  static func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }
}

/// Text order as SQLite's BINARY collation has it: by UTF-8 bytes.
func textOrder(_ lhs: String, _ rhs: String) -> Bool {
  lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
}
