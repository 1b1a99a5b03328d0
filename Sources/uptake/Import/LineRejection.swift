/// A line of an import that was rejected, and why, as stderr shows it.
struct LineRejection: Sendable {
  let line: Int
  let message: String

  /// `line N: message`.
  var text: String { "line \(line): \(message)" }
}
