/// Why a document is not acceptable JSON, and the byte offset where that
/// became clear.
public struct JSONParseError: Error, Sendable, Equatable {
  /// A short lower-case description, suitable for an error response.
  public let message: String
  /// Zero-based offset of the offending byte in the input.
  public let offset: Int
}
