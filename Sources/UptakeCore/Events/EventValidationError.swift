/// Why one event was rejected, as "field: message".
public struct EventValidationError: Error, Sendable, Equatable {
  /// The message for the response's `rejected` list, e.g. `updateId: required`.
  public let message: String

  init(_ message: String) {
    self.message = message
  }
}
