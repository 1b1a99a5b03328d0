import Foundation
import UptakeCluster
import UptakeCore
import UptakeStore

/// `uptake updates get --app APPID [--version N]`
struct UpdatesGetCommand: Command {
  static let path = ["updates", "get"]
  static let summary = "print an app's live update configuration"
  static let help = """
    usage: uptake updates get --app APPID [--version N] [--db PATH | --clickhouse URL[,URL...]]

    Prints the app's live update configuration (the last one put) exactly as
    it was put, so it can be compared with the file kept under version
    control. With --version N, prints that earlier version instead.
    Which version is live goes to stderr: "app APPID: configuration version N".

    options:
      --app APPID   the app (required)
      --version N   an earlier version (see uptake updates history)
      --db PATH     SQLite file (env UPTAKE_DB, default ./uptake.db)
    """ + ClusterArguments.help + "\n\n" + """
      exit codes: 0 printed, 64 usage, 65 unknown app, 66 database missing or
      no configuration (or no such version), 69 database busy (or no ClickHouse
      server answers), 74 I/O error.
      """

  let appId: String
  let version: Int64?
  let databasePath: String
  let cluster: ClusterLayout?

  init(arguments: [String]) throws(CommandError) {
    let parsed = try Arguments(
      arguments, valueFlags: ClusterArguments.valueFlags.union(["--db", "--app", "--version"]),
      booleanFlags: [])
    guard parsed.positionals.isEmpty else {
      throw .usage("unexpected argument \(parsed.positionals[0])")
    }
    appId = try ReportOptions.appId(parsed)
    if let text = parsed.value("--version") {
      guard let number = Int64(text), number > 0 else {
        throw .usage("--version: give a version number like 3")
      }
      version = number
    } else {
      version = nil
    }
    databasePath = parsed.databasePath
    cluster = try ClusterArguments.layout(parsed)
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    guard let stored = try storedVersion() else {
      let what = version.map { "no configuration version \($0)" } ?? "no update configuration"
      throw CommandError(
        message: "app \(appId) has \(what) (load one with: uptake updates put --app "
          + "\(appId) FILE)", exitCode: ExitCode.noInput)
    }
    output.standardError("app \(appId): configuration version \(stored.version)\n")
    let text = stored.document
    output.standardOutput(text.hasSuffix("\n") ? text : text + "\n")
  }

  /// The version asked for, or the live one, from the cluster or the
  /// database.
  private func storedVersion() throws(CommandError) -> (version: Int64, document: String)? {
    if let cluster {
      let versions = try ClusterArguments.configurationVersions(of: appId, in: cluster)
      let found = version.map { wanted in versions.first { $0.version == wanted } } ?? versions.last
      return found.map { ($0.version, $0.document) }
    }
    let database = try StoreAccess.open(databasePath)
    let app = try StoreAccess.app(appId, in: database)
    let stored: StoredUpdateConfiguration?
    do {
      if let version {
        stored = try UpdateConfigStore.version(version, appNo: app.appNo, in: database)
      } else {
        stored = try UpdateConfigStore.live(appNo: app.appNo, in: database)
      }
    } catch {
      throw .store(error)
    }
    return stored.map { ($0.version, $0.documentText) }
  }
}
