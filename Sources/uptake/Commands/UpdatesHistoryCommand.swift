import Foundation
import UptakeCluster
import UptakeCore
import UptakeStore

/// `uptake updates history --app APPID`
struct UpdatesHistoryCommand: Command {
  static let path = ["updates", "history"]
  static let summary = "list the versions of an app's update configuration"
  static let help = """
    usage: uptake updates history --app APPID [--db PATH | --clickhouse URL[,URL...]]

    Lists every configuration version put for the app, oldest first: its
    number, when it was put, and its entries as platform=updateId@version.
    The last one is live. Show one with uptake updates get --version N;
    go back to one by putting that output again. With --clickhouse, the
    versions the cluster holds.

    options:
      --app APPID   the app (required)
      --db PATH     SQLite file (env UPTAKE_DB, default ./uptake.db)
    """ + ClusterArguments.help + "\n\n" + """
      exit codes: 0 listed, 64 usage, 65 unknown app, 66 database missing,
      69 database busy (or no ClickHouse server answers), 74 I/O error.
      """

  let arguments: AppArguments

  init(arguments: [String]) throws(CommandError) {
    self.arguments = try AppArguments(arguments)
  }

  /// One version as the table shows it.
  private struct Version {
    let version: Int64
    let createdAtMs: Int64
    /// Nil when the document no longer validates.
    let configuration: UpdateConfiguration?
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    var table = TextTable([.number("VERSION"), .text("PUT AT"), .text("ENTRIES")])
    for stored in try versions() {
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

  /// Every version, oldest first, from the cluster or the database.
  private func versions() throws(CommandError) -> [Version] {
    if let cluster = arguments.cluster {
      return try ClusterArguments.configurationVersions(of: arguments.appId, in: cluster).map {
        Version(version: $0.version, createdAtMs: $0.createdMs, configuration: $0.configuration)
      }
    }
    let database = try StoreAccess.open(arguments.databasePath)
    let app = try StoreAccess.app(arguments.appId, in: database)
    do {
      return try UpdateConfigStore.history(appNo: app.appNo, in: database).map {
        Version(version: $0.version, createdAtMs: $0.createdAtMs, configuration: $0.configuration)
      }
    } catch {
      throw .store(error)
    }
  }
}
