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

extension Substring {
  fileprivate var trimmingSpaces: String {
    String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
  }
}
