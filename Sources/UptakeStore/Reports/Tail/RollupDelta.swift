import UptakeCore

/// The aggregates of the events not folded yet, held in memory: reports add
/// them to what the rollup tables hold (`RollupTail`). Built from the same
/// `FoldBatch` a fold reads, keyed by texts as the reports' queries are.
struct RollupDelta {
  /// A bucket of daily_counts.
  struct CountKey: Hashable {
    let appNo: Int64
    let isTest: Bool
    let updateId: String
    let day: Int64
    let action: Action
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
  struct SeenKey: Hashable {
    let appNo: Int64
    let isTest: Bool
    let installKey: Int64
    let day: Int64
    let appVersion: String
  }

  var daily: [CountKey: Counts] = [:]
  var dailyInstalls: [CountKey: [Int64: InstallDay]] = [:]
  /// The first time of each (install, day, version).
  var seen: [SeenKey: Int64] = [:]
  /// The events themselves, for the reports that need them one by one.
  private(set) var events: [RollupEvent] = []

  /// The aggregates of `batch`'s events.
  init(_ batch: FoldBatch) {
    events.reserveCapacity(batch.events.count)
    for event in batch.events { add(RollupEvent(event, in: batch)) }
  }

  private mutating func add(_ event: RollupEvent) {
    events.append(event)
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
