/// What the writer waits for before it commits more, beside the fold: a
/// node's shipping, which keeps the events its spool has not shipped from
/// growing without bound under a flood, as the fold's backlog cap does on
/// one box.
public protocol CommitGate: AnyObject, Sendable {
  /// Waits up to `seconds` for room past `committedSeq`, the seq of the
  /// newest event committed; true when the writer may commit.
  func waitForRoom(committedSeq: Int64, seconds: Double) -> Bool
}
