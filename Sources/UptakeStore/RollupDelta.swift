import UptakeCore

/// One stored event, reduced to what the aggregates need.
struct RollupEvent {
  let appNo: Int64
  let isTest: Bool
  let updateId: String
  let action: Action
  let appVersion: String
  let installKey: Int64?
  let timestampMs: Int64
}

/// The aggregates of a run of events, held in memory: folded into the rollup
/// tables by `RollupFolder`, or added by reports to what is folded already.
struct RollupDelta {
  /// A bucket of hourly_counts or daily_counts; `time` is the hour or day.
  struct CountKey: Hashable, Comparable {
    let appNo: Int64
    let isTest: Bool
    let updateId: String
    let time: Int64
    let action: Action

    /// The tables' primary key order, so writes walk each B-tree forwards.
    static func < (lhs: CountKey, rhs: CountKey) -> Bool {
      if lhs.appNo != rhs.appNo { return lhs.appNo < rhs.appNo }
      if lhs.isTest != rhs.isTest { return !lhs.isTest }
      if lhs.updateId != rhs.updateId {
        return lhs.updateId.utf8.lexicographicallyPrecedes(rhs.updateId.utf8)
      }
      if lhs.time != rhs.time { return lhs.time < rhs.time }
      return lhs.action.rawValue < rhs.action.rawValue
    }
  }

  struct Counts {
    var events = 0
    var firstTs = Int64.max
    var lastTs = Int64.min

    mutating func add(_ timestampMs: Int64) {
      events += 1
      firstTs = min(firstTs, timestampMs)
      lastTs = max(lastTs, timestampMs)
    }
  }

  /// An install's events in one daily bucket.
  struct InstallDay {
    var firstTs: Int64
    var firstVersion: String
    var lastTs: Int64
  }

  struct VersionKey: Hashable, Comparable {
    let appNo: Int64
    let isTest: Bool
    let day: Int64
    let appVersion: String

    static func < (lhs: VersionKey, rhs: VersionKey) -> Bool {
      if (lhs.appNo, lhs.isTest ? 1 : 0, lhs.day) != (rhs.appNo, rhs.isTest ? 1 : 0, rhs.day) {
        return (lhs.appNo, lhs.isTest ? 1 : 0, lhs.day) < (rhs.appNo, rhs.isTest ? 1 : 0, rhs.day)
      }
      return lhs.appVersion.utf8.lexicographicallyPrecedes(rhs.appVersion.utf8)
    }
  }

  struct DayKey: Hashable, Comparable {
    let appNo: Int64
    let isTest: Bool
    let day: Int64

    static func < (lhs: DayKey, rhs: DayKey) -> Bool {
      (lhs.appNo, lhs.isTest ? 1 : 0, lhs.day) < (rhs.appNo, rhs.isTest ? 1 : 0, rhs.day)
    }
  }

  struct InstallVersionKey: Hashable, Comparable {
    let appNo: Int64
    let isTest: Bool
    let installKey: Int64
    let appVersion: String

    static func < (lhs: InstallVersionKey, rhs: InstallVersionKey) -> Bool {
      if (lhs.appNo, lhs.isTest ? 1 : 0, lhs.installKey)
        != (rhs.appNo, rhs.isTest ? 1 : 0, rhs.installKey)
      {
        return (lhs.appNo, lhs.isTest ? 1 : 0, lhs.installKey)
          < (rhs.appNo, rhs.isTest ? 1 : 0, rhs.installKey)
      }
      return lhs.appVersion.utf8.lexicographicallyPrecedes(rhs.appVersion.utf8)
    }
  }

  var hourly: [CountKey: Counts] = [:]
  var daily: [CountKey: Counts] = [:]
  var hourlyInstalls: [CountKey: Set<Int64>] = [:]
  var dailyInstalls: [CountKey: [Int64: InstallDay]] = [:]
  var versionInstalls: [VersionKey: Set<Int64>] = [:]
  var activeInstalls: [DayKey: Set<Int64>] = [:]
  var installVersions: [InstallVersionKey: Int64] = [:]
  /// The events themselves, for the reports that need their order (funnel).
  private(set) var events: [RollupEvent] = []
  private let keepsEvents: Bool

  init(keepsEvents: Bool = false) {
    self.keepsEvents = keepsEvents
  }

  var isEmpty: Bool { hourly.isEmpty }

  mutating func add(_ event: RollupEvent) {
    if keepsEvents { events.append(event) }
    let day = Timestamp.dayNumber(ms: event.timestampMs)
    let hour = Self.hour(event.timestampMs)
    let hourKey = CountKey(
      appNo: event.appNo, isTest: event.isTest, updateId: event.updateId, time: hour,
      action: event.action)
    let dayKey = CountKey(
      appNo: event.appNo, isTest: event.isTest, updateId: event.updateId, time: day,
      action: event.action)
    hourly[hourKey, default: Counts()].add(event.timestampMs)
    daily[dayKey, default: Counts()].add(event.timestampMs)
    guard let install = event.installKey else { return }
    hourlyInstalls[hourKey, default: []].insert(install)
    if var known = dailyInstalls[dayKey]?[install] {
      if event.timestampMs < known.firstTs {
        known.firstTs = event.timestampMs
        known.firstVersion = event.appVersion
      }
      known.lastTs = max(known.lastTs, event.timestampMs)
      dailyInstalls[dayKey]![install] = known
    } else {
      dailyInstalls[dayKey, default: [:]][install] = InstallDay(
        firstTs: event.timestampMs, firstVersion: event.appVersion, lastTs: event.timestampMs)
    }
    versionInstalls[
      VersionKey(appNo: event.appNo, isTest: event.isTest, day: day, appVersion: event.appVersion),
      default: []
    ].insert(install)
    activeInstalls[DayKey(appNo: event.appNo, isTest: event.isTest, day: day), default: []]
      .insert(install)
    let versionKey = InstallVersionKey(
      appNo: event.appNo, isTest: event.isTest, installKey: install, appVersion: event.appVersion)
    installVersions[versionKey] = min(installVersions[versionKey] ?? .max, event.timestampMs)
  }

  static func hour(_ timestampMs: Int64) -> Int64 {
    timestampMs >= 0 ? timestampMs / 3_600_000 : (timestampMs - 3_599_999) / 3_600_000
  }
}
