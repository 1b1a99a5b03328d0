import Foundation
import UptakeCluster
import UptakeCore
import UptakeStore

/// `uptake apps add APPID [--json]`
struct AppsAddCommand: Command {
  static let path = ["apps", "add"]
  static let summary = "create an app and print its keys (shown only once)"
  static let help = """
    usage: uptake apps add APPID [--json] [--db PATH | --clickhouse URL[,URL...]]

    Creates an app with a fresh ingest key (ships inside the mobile app, can
    only post events) and read key (secret, reads reports), and prints both.
    They are stored only as hashes: this is the one time they are shown.
    Creates the database when it does not exist yet. With --clickhouse the
    app is made in the cluster, and every node takes it within seconds.

    options:
      --json      print exactly one JSON object {"appId", "ingestKey", "readKey"}
      --db PATH   SQLite file (env UPTAKE_DB, default ./uptake.db)
    """ + ClusterArguments.help

  let appId: String
  let json: Bool
  let databasePath: String
  let cluster: ClusterLayout?

  init(arguments: [String]) throws(CommandError) {
    let parsed = try Arguments(
      arguments, valueFlags: ClusterArguments.valueFlags.union(["--db"]), booleanFlags: ["--json"])
    guard parsed.positionals.count == 1 else { throw .usage("give exactly one APPID") }
    appId = parsed.positionals[0]
    guard AppID.isValid(appId) else {
      throw .usage(
        "invalid APPID \"\(appId)\": use 1-63 of a-z, 0-9 and -, starting with a letter or digit")
    }
    json = parsed.has("--json")
    databasePath = parsed.databasePath
    cluster = try ClusterArguments.layout(parsed)
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    let keys: NewAppKeys
    if let cluster {
      let cluster = try ClusterArguments.ready(cluster)
      do {
        keys = try ClusterAppAdmin.add(appId, to: cluster, nowMs: WallClock.nowMs())
      } catch {
        throw .cluster(error)
      }
    } else {
      let database = try StoreAccess.open(databasePath, create: true)
      do {
        keys = try AppRegistry.add(appId, in: database, nowMs: WallClock.nowMs())
      } catch {
        throw .store(error)
      }
    }
    if json {
      var writer = JSONWriter()
      writer.beginObject()
      writer.member("appId", keys.appId)
      writer.member("ingestKey", keys.ingestKey)
      writer.member("readKey", keys.readKey)
      writer.endObject()
      output.standardOutput(writer.text + "\n")
    } else {
      output.standardOutput(
        """
        app: \(keys.appId)
        ingest key: \(keys.ingestKey)
        read key: \(keys.readKey)

        """)
      output.standardError("Keep the read key secret; neither key can be shown again.\n")
    }
  }
}
