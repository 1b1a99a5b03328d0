import Foundation
import UptakeCluster
import UptakeCore
import UptakeStore

/// `uptake apps list`
struct AppsListCommand: Command {
  static let path = ["apps", "list"]
  static let summary = "list apps"
  static let help = """
    usage: uptake apps list [--json] [--db PATH | --clickhouse URL[,URL...]]

    Lists every app with its creation time. Keys are never listed.

    options:
      --json      print {"apps": [{"appId", "createdAt"}]}
      --db PATH   SQLite file (env UPTAKE_DB, default ./uptake.db)
    """ + ClusterArguments.help

  let json: Bool
  let databasePath: String
  let cluster: ClusterLayout?

  init(arguments: [String]) throws(CommandError) {
    let parsed = try Arguments(
      arguments, valueFlags: ClusterArguments.valueFlags.union(["--db"]), booleanFlags: ["--json"])
    guard parsed.positionals.isEmpty else {
      throw .usage("unexpected argument \(parsed.positionals[0])")
    }
    json = parsed.has("--json")
    databasePath = parsed.databasePath
    cluster = try ClusterArguments.layout(parsed)
  }

  /// The apps as (id, creation time), from the cluster or the database.
  private func apps() throws(CommandError) -> [(appId: String, createdAtMs: Int64)] {
    if let cluster {
      let cluster = try ClusterArguments.ready(cluster)
      do {
        return try ClusterAppAdmin.list(cluster).map { ($0.appId, $0.createdMs) }
      } catch {
        throw .cluster(error)
      }
    }
    let database = try StoreAccess.open(databasePath)
    do {
      return try AppRegistry.list(in: database).map { ($0.appId, $0.createdAtMs) }
    } catch {
      throw .store(error)
    }
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    let apps = try apps()
    if json {
      var writer = JSONWriter()
      writer.beginObject()
      writer.key("apps")
      writer.beginArray()
      for app in apps {
        writer.beginObject()
        writer.member("appId", app.appId)
        writer.member("createdAt", Timestamp.formatRFC3339(app.createdAtMs))
        writer.endObject()
      }
      writer.endArray()
      writer.endObject()
      output.standardOutput(writer.text + "\n")
      return
    }
    let width = max(6, apps.map(\.appId.count).max() ?? 0)
    var text = "APP".padding(toLength: width, withPad: " ", startingAt: 0) + "  CREATED\n"
    for app in apps {
      text +=
        app.appId.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
        + Timestamp.formatRFC3339(app.createdAtMs) + "\n"
    }
    output.standardOutput(text)
  }
}
