import Foundation
import UptakeCore
import UptakeStore

/// `uptake updates history --app APPID`
struct UpdatesHistoryCommand: Command {
  static let path = ["updates", "history"]
  static let summary = "list the versions of an app's update configuration"
  static let help = """
    usage: uptake updates history --app APPID [--db PATH]

    Lists every configuration version put for the app, oldest first: its
    number, when it was put, and its entries as platform=updateId@version.
    The last one is live. Show one with uptake updates get --version N;
    go back to one by putting that output again.

    options:
      --app APPID   the app (required)
      --db PATH     SQLite file (env UPTAKE_DB, default ./uptake.db)
    """

  let arguments: AppArguments

  init(arguments: [String]) throws(CommandError) {
    self.arguments = try AppArguments(arguments)
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    let database = try StoreAccess.open(arguments.databasePath)
    let app = try StoreAccess.app(arguments.appId, in: database)
    let history: [StoredUpdateConfiguration]
    do {
      history = try UpdateConfigStore.history(appNo: app.appNo, in: database)
    } catch {
      throw .store(error)
    }
    var table = TextTable([.number("VERSION"), .text("PUT AT"), .text("ENTRIES")])
    for stored in history {
      let entries =
        stored.configuration.map { configuration in
          configuration.entries.map {
            "\($0.platform.rawValue)=\($0.updateId)@\($0.latestVersion.text)"
          }
          .joined(separator: " ")
        } ?? "(no longer valid)"
      table.append([
        String(stored.version), Timestamp.formatRFC3339(stored.createdAtMs),
        entries.isEmpty ? "(none)" : entries,
      ])
    }
    output.standardOutput(table.text)
  }
}
