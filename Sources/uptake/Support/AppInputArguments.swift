/// The arguments of a command that reads one input for one app:
/// `--app APPID FILE|- [--db PATH]` (`import`, `updates put`).
struct AppInputArguments {
  let appId: String
  /// A file's path, or `-` for stdin.
  let inputPath: String
  let databasePath: String
  /// Everything given, for a command's own flags (`extraValueFlags`).
  let parsed: Arguments

  init(_ arguments: [String], extraValueFlags: Set<String> = []) throws(CommandError) {
    parsed = try Arguments(
      arguments, valueFlags: Set(["--db", "--app"]).union(extraValueFlags), booleanFlags: [])
    appId = try ReportOptions.appId(parsed)
    guard parsed.positionals.count == 1 else {
      throw .usage("give exactly one FILE, or - for stdin")
    }
    inputPath = parsed.positionals[0]
    databasePath = parsed.databasePath
  }

  /// The input as messages name it.
  var inputName: String { inputPath == "-" ? "stdin" : inputPath }
}
