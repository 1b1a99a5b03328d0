import Foundation

/// A small argument reader shared by the subcommands: flags with values,
/// boolean flags and positionals, in any order, with `--` ending the flags.
struct Arguments {
  private(set) var positionals: [String] = []
  private var values: [String: String] = [:]
  private var flags: Set<String> = []

  /// `valueFlags` take a value (`--from D` or `--from=D`); `booleanFlags` do
  /// not. Anything else starting with `-` is a usage error.
  init(_ arguments: [String], valueFlags: Set<String>, booleanFlags: Set<String>)
    throws(CommandError)
  {
    var remaining = arguments[...]
    var onlyPositionals = false
    while let argument = remaining.popFirst() {
      if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
        positionals.append(argument)
        continue
      }
      if argument == "--" {
        onlyPositionals = true
        continue
      }
      var name = argument
      var inlineValue: String?
      if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
        name = String(argument[..<equals])
        inlineValue = String(argument[argument.index(after: equals)...])
      }
      if valueFlags.contains(name) {
        guard let value = inlineValue ?? remaining.popFirst() else {
          throw .usage("\(name) needs a value")
        }
        values[name] = value
      } else if booleanFlags.contains(name), inlineValue == nil {
        flags.insert(name)
      } else {
        throw .usage("unknown option \(name)")
      }
    }
  }

  func value(_ name: String) -> String? { values[name] }

  func has(_ flag: String) -> Bool { flags.contains(flag) }

  /// The database path: `--db`, else UPTAKE_DB, else ./uptake.db.
  var databasePath: String {
    if let path = values["--db"] { return path }
    if let path = ProcessInfo.processInfo.environment["UPTAKE_DB"], !path.isEmpty { return path }
    return "./uptake.db"
  }
}
