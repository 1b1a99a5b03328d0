import UptakeCluster

/// The arguments of a command about one app and nothing else:
/// `--app APPID [--db PATH | --clickhouse URL[,URL...]]` (`updates history`,
/// `updates status`).
struct AppArguments {
  let appId: String
  let databasePath: String
  /// The cluster to read instead of the database, nil for none.
  let cluster: ClusterLayout?

  init(_ arguments: [String]) throws(CommandError) {
    let parsed = try Arguments(
      arguments, valueFlags: ClusterArguments.valueFlags.union(["--db", "--app"]),
      booleanFlags: [])
    guard parsed.positionals.isEmpty else {
      throw .usage("unexpected argument \(parsed.positionals[0])")
    }
    appId = try ReportOptions.appId(parsed)
    databasePath = parsed.databasePath
    cluster = try ClusterArguments.layout(parsed)
  }
}
