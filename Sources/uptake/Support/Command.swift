/// One `uptake` subcommand: it parses its arguments (never touching
/// CommandLine, so tests can drive it), then runs.
protocol Command {
  /// The words that select it, e.g. ["apps", "add"].
  static var path: [String] { get }
  /// One line for the command list.
  static var summary: String { get }
  /// The full help text.
  static var help: String { get }

  init(arguments: [String]) throws(CommandError)
  func run(_ output: inout CommandOutput) throws(CommandError)
}
