/// A dimension that grouped reports and exports can group by.
public enum GroupKey: String, CaseIterable, Sendable {
  case date, updateId, action, appVersion, platform, osVersion

  /// The column name in CSV exports (snake case, per the contract).
  public var csvName: String {
    switch self {
    case .date: "date"
    case .updateId: "update_id"
    case .action: "action"
    case .appVersion: "app_version"
    case .platform: "platform"
    case .osVersion: "os_version"
    }
  }

  /// True for keys sorted in version order rather than text order.
  public var isVersion: Bool { self == .appVersion || self == .osVersion }

  /// The default grouping of `/v1/report` and `uptake export`.
  public static let defaultGrouping: [GroupKey] = [.date, .updateId, .action]

  /// Parses "date,updateId,action": every name known, none repeated.
  public static func parseList(_ text: String) -> Result<[GroupKey], ReportParameterError> {
    var keys: [GroupKey] = []
    for name in text.split(separator: ",", omittingEmptySubsequences: false) {
      let trimmed = name.trimmingSpaces
      guard let key = GroupKey(rawValue: trimmed) else {
        let known = GroupKey.allCases.map(\.rawValue).joined(separator: ", ")
        return .failure(ReportParameterError("groupBy: unknown key \"\(trimmed)\" (use \(known))"))
      }
      guard !keys.contains(key) else {
        return .failure(ReportParameterError("groupBy: \"\(trimmed)\" given twice"))
      }
      keys.append(key)
    }
    return .success(keys)
  }
}

/// How finely `date` is bucketed.
public enum Granularity: String, Sendable {
  case day, hour
}

/// Which events a report counts, by their `test` flag.
public enum TestFilter: String, CaseIterable, Sendable {
  case exclude, include, only
}

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

  /// The first millisecond in the range, and the first one after it.
  public var startMs: Int64 { fromDay * 86_400_000 }
  public var endMs: Int64 { (toDay + 1) * 86_400_000 }
}

/// A report parameter that cannot be used, with a message for the caller.
public struct ReportParameterError: Error, Sendable, Equatable {
  public let message: String
  public init(_ message: String) { self.message = message }
}

extension Substring {
  fileprivate var trimmingSpaces: String {
    String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
  }
}
