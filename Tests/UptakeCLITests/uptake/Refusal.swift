@testable import uptake

/// How `uptake` refuses a command line: the message, the exit code, and
/// whether the command's help follows the message.
struct Refusal: Equatable, CustomStringConvertible {
  let message: String
  let exitCode: Int32
  let showsHelp: Bool

  init(_ error: CommandError) {
    message = error.message
    exitCode = error.exitCode
    showsHelp = error.showsHelp
  }

  init(message: String, exitCode: Int32, showsHelp: Bool) {
    self.message = message
    self.exitCode = exitCode
    self.showsHelp = showsHelp
  }

  /// A usage error: exit 64, with the command's help.
  static func usage(_ message: String) -> Refusal {
    Refusal(message: message, exitCode: 64, showsHelp: true)
  }

  var description: String { "\(exitCode) \"\(message)\"\(showsHelp ? " with help" : "")" }
}

/// The refusal `parse` throws, or nil when it parses.
func refusal(_ parse: () throws(CommandError) -> some Any) -> Refusal? {
  do {
    _ = try parse()
    return nil
  } catch {
    return Refusal(error)
  }
}

/// The refusal `command`'s parse throws for `arguments`, or nil when it parses.
func refusal(_ command: any Command.Type, _ arguments: [String]) -> Refusal? {
  refusal { () throws(CommandError) in try command.init(arguments: arguments) }
}
