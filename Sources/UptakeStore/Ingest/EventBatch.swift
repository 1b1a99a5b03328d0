import UptakeCore

/// Events of one app to store together, as one request or one import chunk.
public struct EventBatch: Sendable {
  public let appNo: Int64
  public let events: [Event]
  public let receivedAtMs: Int64

  public init(appNo: Int64, events: [Event], receivedAtMs: Int64) {
    self.appNo = appNo
    self.events = events
    self.receivedAtMs = receivedAtMs
  }
}
