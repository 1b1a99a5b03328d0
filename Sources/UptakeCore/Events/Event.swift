/// What the user did with an update prompt. The raw values are what the
/// store keeps, so they must never be renumbered.
public enum Action: Int, CaseIterable, Sendable, Comparable {
  case impression = 0
  case download = 1
  case later = 2
  case ignore = 3

  /// The name used on the wire, in reports and in CSV.
  public var name: String {
    switch self {
    case .impression: "impression"
    case .download: "download"
    case .later: "later"
    case .ignore: "ignore"
    }
  }

  public init?(name: String) {
    guard let action = Action.allCases.first(where: { $0.name == name }) else { return nil }
    self = action
  }

  public static func < (lhs: Action, rhs: Action) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The platforms an event or an update configuration may name.
public enum Platform: String, CaseIterable, Sendable {
  case ios, ipados, macos, tvos, watchos, visionos, android, other
}

/// One validated event, ready to be stored. Every field already satisfies the
/// contract's rules; `timestampMs` is the event time (the time received when
/// the client sent none) in milliseconds since the Unix epoch, UTC.
public struct Event: Sendable, Equatable {
  public var id: String?
  public var updateId: String
  public var action: Action
  public var appVersion: String
  public var installId: String?
  public var timestampMs: Int64
  public var osVersion: String?
  public var platform: Platform?
  public var previousAppVersion: String?
  public var isTest: Bool

  public init(
    id: String? = nil, updateId: String, action: Action, appVersion: String,
    installId: String? = nil, timestampMs: Int64, osVersion: String? = nil,
    platform: Platform? = nil, previousAppVersion: String? = nil, isTest: Bool = false
  ) {
    self.id = id
    self.updateId = updateId
    self.action = action
    self.appVersion = appVersion
    self.installId = installId
    self.timestampMs = timestampMs
    self.osVersion = osVersion
    self.platform = platform
    self.previousAppVersion = previousAppVersion
    self.isTest = isTest
  }
}
