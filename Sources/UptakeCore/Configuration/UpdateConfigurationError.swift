/// Every problem of a rejected configuration document, in document order.
public struct UpdateConfigurationError: Error, Sendable, Equatable {
  /// One "path: message" line per problem.
  public let messages: [String]

  init(_ messages: [String]) {
    self.messages = messages
  }
}
