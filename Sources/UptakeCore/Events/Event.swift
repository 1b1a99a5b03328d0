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
