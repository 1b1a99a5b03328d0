import UptakeCore

/// Events and distinct installs of one action.
public struct ActionCounts: Sendable, Equatable {
  public var events = 0
  public var installs = 0

  public init(events: Int = 0, installs: Int = 0) {
    self.events = events
    self.installs = installs
  }
}
