/// How one batch fared: events stored, and events skipped as duplicates.
public struct InsertOutcome: Sendable, Equatable {
  public var accepted: Int
  public var duplicates: Int

  public init(accepted: Int = 0, duplicates: Int = 0) {
    self.accepted = accepted
    self.duplicates = duplicates
  }
}
