import UptakeCore

/// How one batch fared: events stored, events skipped as duplicates, and
/// events refused by the store (an app's distinct values for the day used
/// up, `DailyDistinctValues`).
public struct InsertOutcome: Sendable, Equatable {
  public var accepted: Int
  public var duplicates: Int
  /// Each `index` is the event's position in the batch's `events`, not in
  /// the request: the caller knows where each came from.
  public var rejected: [Rejection]

  public init(accepted: Int = 0, duplicates: Int = 0, rejected: [Rejection] = []) {
    self.accepted = accepted
    self.duplicates = duplicates
    self.rejected = rejected
  }
}
