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

/// The aggregates of a run of events, held in memory: written into the
/// rollup tables by `RollupFolder`, or added by reports to what is folded
/// already. Keys sort in their table's primary key order, so writes walk
/// each B-tree forwards.
struct RollupDelta {
  /// A bucket of daily_counts.
  struct CountKey: Hashable, Comparable {
    let appNo: Int64
    let isTest: Bool
    let updateId: String
    let day: Int64
    let action: Action

    static func < (lhs: CountKey, rhs: CountKey) -> Bool {
      if lhs.appNo != rhs.appNo { return lhs.appNo < rhs.appNo }
      if lhs.isTest != rhs.isTest { return !lhs.isTest }
      if lhs.updateId != rhs.updateId {
        return lhs.updateId.utf8.lexicographicallyPrecedes(rhs.updateId.utf8)
      }
      if lhs.day != rhs.day { return lhs.day < rhs.day }
      return lhs.action.rawValue < rhs.action.rawValue
    }
  }

  struct Counts {
    var events = 0
    var firstTs = Int64.max
    var lastTs = Int64.min
  }

  /// An install's events in one daily bucket.
  struct InstallDay {
    var firstTs: Int64
    var firstVersion: String
    var lastTs: Int64
  }

  /// A row of install_days: an install seen on a version on a day.
  struct SeenKey: Hashable, Comparable {
    let appNo: Int64
    let isTest: Bool
    let installKey: Int64
    let day: Int64
    let appVersion: String

    static func < (lhs: SeenKey, rhs: SeenKey) -> Bool {
      if lhs.appNo != rhs.appNo { return lhs.appNo < rhs.appNo }
      if lhs.isTest != rhs.isTest { return !lhs.isTest }
      if lhs.installKey != rhs.installKey { return lhs.installKey < rhs.installKey }
      if lhs.day != rhs.day { return lhs.day < rhs.day }
      return lhs.appVersion.utf8.lexicographicallyPrecedes(rhs.appVersion.utf8)
    }
  }

  var daily: [CountKey: Counts] = [:]
  var dailyInstalls: [CountKey: [Int64: InstallDay]] = [:]
  /// The first time of each (install, day, version).
  var seen: [SeenKey: Int64] = [:]
  /// The events themselves, for the reports that need them one by one.
  private(set) var events: [RollupEvent] = []
  private let keepsEvents: Bool

  init(keepsEvents: Bool = false) {
    self.keepsEvents = keepsEvents
  }

  mutating func add(_ event: RollupEvent) {
    if keepsEvents { events.append(event) }
    let day = Timestamp.dayNumber(ms: event.timestampMs)
    let key = CountKey(
      appNo: event.appNo, isTest: event.isTest, updateId: event.updateId, day: day,
      action: event.action)
    var counts = daily[key] ?? Counts()
    counts.events += 1
    counts.firstTs = min(counts.firstTs, event.timestampMs)
    counts.lastTs = max(counts.lastTs, event.timestampMs)
    daily[key] = counts
    guard let install = event.installKey else { return }
    // Mutated in place: copying a bucket's dictionary per event would make
    // the fold quadratic.
    if var known = dailyInstalls[key]?[install] {
      if event.timestampMs < known.firstTs {
        known.firstTs = event.timestampMs
        known.firstVersion = event.appVersion
      }
      known.lastTs = max(known.lastTs, event.timestampMs)
      dailyInstalls[key]![install] = known
    } else {
      dailyInstalls[key, default: [:]][install] = InstallDay(
        firstTs: event.timestampMs, firstVersion: event.appVersion, lastTs: event.timestampMs)
    }
    let seenKey = SeenKey(
      appNo: event.appNo, isTest: event.isTest, installKey: install, day: day,
      appVersion: event.appVersion)
    seen[seenKey] = min(seen[seenKey] ?? .max, event.timestampMs)
  }
}
