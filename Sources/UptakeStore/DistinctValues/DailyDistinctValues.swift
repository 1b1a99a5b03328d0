import UptakeCore

/// The distinct `updateId`s, `appVersion`s and `osVersion`s (`CappedField`)
/// each app's events carried on each UTC day, and the rule on them: an
/// event that would bring one of those fields past `limit` distinct values
/// for its app and day is refused; an event whose values were already seen
/// that day is always admitted.
///
/// Why: the ingest key ships inside the app, so anyone can post events
/// with values of their choosing, and every distinct value is a row of
/// some report. 1.5M app versions posted in 28 s made `groupBy=appVersion`
/// take over a minute and 3.7 GB; 500k update ids made one `/v1/updates`
/// answer 103 MB (issue 25). A real app has a handful of each a day.
///
/// In memory only, and kept by one thread: `DistinctValueCap` fills it
/// from the stored events and undoes what a rolled-back transaction
/// admitted, so it always holds exactly the stored events' values. Swift's
/// `Set` hashes with a per-process seed, so values chosen by a client
/// cannot be made to collide.
struct DailyDistinctValues {
  /// One app's UTC day (days since 1970-01-01).
  struct Day: Hashable {
    let appNo: Int64
    let day: Int64
  }

  /// The values of each capped field seen on one app's day.
  struct Values {
    var updateIds: Set<String> = []
    var appVersions: Set<String> = []
    var osVersions: Set<String> = []
  }

  /// Why an event was refused: `field` had `count` distinct values on `day`.
  struct Refusal: Equatable {
    let field: CappedField
    let count: Int
    let day: Int64

    /// The rejection's text, in the contract's "field: message" form; it
    /// names the day and the daemon's flag, so whoever reads it knows what
    /// was refused, why, and what would lift it.
    var message: String {
      "\(field.name): the app already has \(count) distinct values on "
        + "\(Timestamp.formatDate(dayNumber: day)), the limit per day (--max-distinct-per-day)"
    }
  }

  /// Distinct values a field may have per app and day.
  let limit: Int
  private(set) var days: [Day: Values] = [:]
  /// What `admit` added since the last `commit()`, so `rollBack()` can
  /// take it out again.
  private var admitted: [(day: Day, field: CappedField, value: String)] = []

  init(limit: Int) {
    precondition(limit > 0, "a limit of distinct values must be positive")
    self.limit = limit
  }

  /// Admits the event of `appNo` and records its new values, or refuses it
  /// and records nothing. The first field over the limit, in the
  /// contract's order, is the one refused.
  mutating func admit(_ event: Event, appNo: Int64) -> Refusal? {
    let day = Day(appNo: appNo, day: Timestamp.dayNumber(ms: event.timestampMs))
    let limit = self.limit
    // Modified in place: one lookup of the day, then one of each value.
    return Self.admit(
      event, on: day, into: &days[day, default: Values()], limit: limit, admitted: &admitted)
  }

  private static func admit(
    _ event: Event, on day: Day, into values: inout Values, limit: Int,
    admitted: inout [(day: Day, field: CappedField, value: String)]
  ) -> Refusal? {
    let newUpdate = !values.updateIds.contains(event.updateId)
    if newUpdate && values.updateIds.count >= limit {
      return Refusal(field: .updateId, count: values.updateIds.count, day: day.day)
    }
    let newVersion = !values.appVersions.contains(event.appVersion)
    if newVersion && values.appVersions.count >= limit {
      return Refusal(field: .appVersion, count: values.appVersions.count, day: day.day)
    }
    let newOS = event.osVersion.map { !values.osVersions.contains($0) } ?? false
    if newOS && values.osVersions.count >= limit {
      return Refusal(field: .osVersion, count: values.osVersions.count, day: day.day)
    }
    if newUpdate {
      values.updateIds.insert(event.updateId)
      admitted.append((day, .updateId, event.updateId))
    }
    if newVersion {
      values.appVersions.insert(event.appVersion)
      admitted.append((day, .appVersion, event.appVersion))
    }
    if newOS, let osVersion = event.osVersion {
      values.osVersions.insert(osVersion)
      admitted.append((day, .osVersion, osVersion))
    }
    return nil
  }

  /// Records the values of an event already stored, whatever the limit:
  /// one read at start, or one another process stored.
  mutating func record(
    appNo: Int64, day: Int64, updateId: String, appVersion: String, osVersion: String?
  ) {
    let key = Day(appNo: appNo, day: day)
    Self.record(updateId, appVersion, osVersion, into: &days[key, default: Values()])
  }

  private static func record(
    _ updateId: String, _ appVersion: String, _ osVersion: String?, into values: inout Values
  ) {
    values.updateIds.insert(updateId)
    values.appVersions.insert(appVersion)
    if let osVersion { values.osVersions.insert(osVersion) }
  }

  /// The values admitted since the last call are stored: keep them.
  mutating func commit() {
    admitted.removeAll(keepingCapacity: true)
  }

  /// The transaction that would have stored the values admitted since the
  /// last `commit()` rolled back: forget them, so a failed batch leaves
  /// nothing counted.
  mutating func rollBack() {
    for (day, field, value) in admitted {
      switch field {
      case .updateId: days[day]?.updateIds.remove(value)
      case .appVersion: days[day]?.appVersions.remove(value)
      case .osVersion: days[day]?.osVersions.remove(value)
      }
    }
    admitted.removeAll(keepingCapacity: true)
  }

  /// Forgets the days before `day`: no event can be stored on them any more.
  mutating func forgetDays(before day: Int64) {
    days = days.filter { $0.key.day >= day }
  }

  /// Values held, over every app, day and field: for the log at start.
  var valueCount: Int {
    days.values.reduce(0) { $0 + $1.updateIds.count + $1.appVersions.count + $1.osVersions.count }
  }
}
