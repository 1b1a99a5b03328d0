/// A report parameter that cannot be used, with a message for the caller.
public struct ReportParameterError: Error, Sendable, Equatable {
  public let message: String
  public init(_ message: String) { self.message = message }
}
