import UptakeCore

/// One row of a grouped report: the key values in the order asked for (nil
/// where the events had no value, such as a missing platform), then counts.
public struct GroupedRow: Sendable, Equatable {
  public let keys: [String?]
  public let events: Int
  public let installs: Int

  public init(keys: [String?], events: Int, installs: Int) {
    self.keys = keys
    self.events = events
    self.installs = installs
  }
}
