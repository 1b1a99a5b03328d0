import Foundation
import UptakeCore
import UptakeStore

/// `uptake updates get --app APPID [--version N]`
struct UpdatesGetCommand: Command {
  static let path = ["updates", "get"]
  static let summary = "print an app's live update configuration"
  static let help = """
    usage: uptake updates get --app APPID [--version N] [--db PATH]

    Prints the app's live update configuration (the last one put) exactly as
    it was put, so it can be compared with the file kept under version
    control. With --version N, prints that earlier version instead.
    Which version is live goes to stderr: "app APPID: configuration version N".

    options:
      --app APPID   the app (required)
      --version N   an earlier version (see uptake updates history)
      --db PATH     SQLite file (env UPTAKE_DB, default ./uptake.db)

    exit codes: 0 printed, 64 usage, 65 unknown app, 66 database missing or
    no configuration (or no such version), 69 database busy, 74 I/O error.
    """

  let appId: String
  let version: Int64?
  let databasePath: String

  init(arguments: [String]) throws(CommandError) {
    let parsed = try Arguments(
      arguments, valueFlags: ["--db", "--app", "--version"], booleanFlags: [])
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
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
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
    guard let stored else {
      let what = version.map { "no configuration version \($0)" } ?? "no update configuration"
      throw CommandError(
        message: "app \(app.appId) has \(what) (load one with: uptake updates put --app "
          + "\(app.appId) FILE)", exitCode: ExitCode.noInput)
    }
    output.standardError("app \(app.appId): configuration version \(stored.version)\n")
    let text = stored.documentText
    output.standardOutput(text.hasSuffix("\n") ? text : text + "\n")
  }
}
