/// The event fields whose distinct values per app and day are capped: the
/// free-text ones that reports group by, so every new value is a new row
/// of some report. `platform` and `action` have a handful of values by
/// the contract; `installId` is meant to have millions and is counted, not
/// grouped by; `previousAppVersion` no report groups by.
enum CappedField: Sendable {
  case updateId
  case appVersion
  case osVersion

  /// The field's name in an event, as a rejection names it.
  var name: String {
    switch self {
    case .updateId: "updateId"
    case .appVersion: "appVersion"
    case .osVersion: "osVersion"
    }
  }
}
