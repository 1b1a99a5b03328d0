import UptakeCore

/// A row of install_days held by a fold: an install seen on a version on a
/// day, first at `firstTs`.
struct SeenRow {
  let day: Int32
  let version: Int32
  var firstTs: Int64

  /// Earlier in the install's timeline: an earlier day, or the same day
  /// and an earlier first time.
  func isBefore(_ other: SeenRow) -> Bool {
    day < other.day || (day == other.day && firstTs < other.firstTs)
  }
}
