/// A report's date range: whole UTC days, both ends included, as day numbers
/// (days since 1970-01-01).
public struct DayRange: Sendable, Equatable {
  public let fromDay: Int64
  public let toDay: Int64

  public init(fromDay: Int64, toDay: Int64) {
    self.fromDay = fromDay
    self.toDay = toDay
  }

  /// The contract's default: the last 30 days up to and including today.
  public static func lastThirtyDays(nowMs: Int64) -> DayRange {
    let today = Timestamp.dayNumber(ms: nowMs)
    return DayRange(fromDay: today - 29, toDay: today)
  }

  /// Builds a range from optional `from`/`to` texts; a missing end takes the
  /// default's, and `from` after `to` is an error.
  public static func parse(from: String?, to: String?, nowMs: Int64) -> Result<
    DayRange, ReportParameterError
  > {
    let fallback = lastThirtyDays(nowMs: nowMs)
    var fromDay = fallback.fromDay
    var toDay = fallback.toDay
    if let to {
      guard let day = Timestamp.parseDate(to) else {
        return .failure(ReportParameterError("to: not a date (use YYYY-MM-DD)"))
      }
      toDay = day
      if from == nil { fromDay = day - 29 }
    }
    if let from {
      guard let day = Timestamp.parseDate(from) else {
        return .failure(ReportParameterError("from: not a date (use YYYY-MM-DD)"))
      }
      fromDay = day
    }
    guard fromDay <= toDay else {
      return .failure(ReportParameterError("from: after to"))
    }
    return .success(DayRange(fromDay: fromDay, toDay: toDay))
  }

  /// The days of this range that are also in `days`; nil when none are.
  /// A range may name any dates from 0000-01-01 to 9999-12-31, millions of
  /// days, so a report that goes day by day walks only the days that can
  /// hold events: those from the first to the last one stored.
  public func clamped(to days: ClosedRange<Int64>) -> DayRange? {
    let first = max(fromDay, days.lowerBound)
    let last = min(toDay, days.upperBound)
    return first <= last ? DayRange(fromDay: first, toDay: last) : nil
  }

  /// The first millisecond in the range, and the first one after it.
  public var startMs: Int64 { fromDay * 86_400_000 }
  public var endMs: Int64 { (toDay + 1) * 86_400_000 }
}
