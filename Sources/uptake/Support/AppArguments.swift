/// The arguments of a command about one app and nothing else:
/// `--app APPID [--db PATH]` (`updates history`, `updates status`).
struct AppArguments {
  let appId: String
  let databasePath: String

  init(_ arguments: [String]) throws(CommandError) {
    let parsed = try Arguments(arguments, valueFlags: ["--db", "--app"], booleanFlags: [])
    guard parsed.positionals.isEmpty else {
      throw .usage("unexpected argument \(parsed.positionals[0])")
    }
    appId = try ReportOptions.appId(parsed)
    databasePath = parsed.databasePath
  }
}
