/// One event that broke a rule, by its position in the request.
public struct Rejection: Sendable, Equatable {
  /// Zero-based position in the request's `events` array.
  public let index: Int
  /// The rule it broke, as "field: message".
  public let error: String

  /// A rejection of the event at `index`.
  public init(index: Int, error: String) {
    self.index = index
    self.error = error
  }
}
