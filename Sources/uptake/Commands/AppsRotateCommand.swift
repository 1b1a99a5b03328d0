import Foundation
import UptakeCluster
import UptakeCore
import UptakeStore

/// `uptake apps rotate APPID --ingest|--read`
struct AppsRotateCommand: Command {
  static let path = ["apps", "rotate"]
  static let summary = "replace an app's ingest or read key"
  static let help = """
    usage: uptake apps rotate APPID --ingest|--read [--json] [--db PATH | --clickhouse URL[,URL...]]

    Replaces one key of the app and prints the new one (shown only once).
    The old key stops working within a second, also in a running uptaked;
    with --clickhouse, on every node of the cluster within a few seconds.

    options:
      --ingest    replace the ingest key
      --read      replace the read key
      --json      print {"appId", "ingestKey"} or {"appId", "readKey"}
      --db PATH   SQLite file (env UPTAKE_DB, default ./uptake.db)
    """ + ClusterArguments.help

  let appId: String
  let kind: KeyKind
  let json: Bool
  let databasePath: String
  let cluster: ClusterLayout?

  init(arguments: [String]) throws(CommandError) {
    let parsed = try Arguments(
      arguments, valueFlags: ClusterArguments.valueFlags.union(["--db"]),
      booleanFlags: ["--ingest", "--read", "--json"])
    guard parsed.positionals.count == 1 else { throw .usage("give exactly one APPID") }
    guard parsed.has("--ingest") != parsed.has("--read") else {
      throw .usage("give exactly one of --ingest and --read")
    }
    appId = parsed.positionals[0]
    kind = parsed.has("--ingest") ? .ingest : .read
    json = parsed.has("--json")
    databasePath = parsed.databasePath
    cluster = try ClusterArguments.layout(parsed)
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    let key: String
    if let cluster {
      let cluster = try ClusterArguments.ready(cluster)
      do {
        key = try ClusterAppAdmin.rotate(appId, kind: kind, in: cluster, nowMs: WallClock.nowMs())
      } catch {
        throw .cluster(error)
      }
    } else {
      let database = try StoreAccess.open(databasePath)
      do {
        key = try AppRegistry.rotate(appId, kind: kind, in: database)
      } catch {
        throw .store(error)
      }
    }
    let name = kind == .ingest ? "ingestKey" : "readKey"
    if json {
      var writer = JSONWriter()
      writer.beginObject()
      writer.member("appId", appId)
      writer.member(name, key)
      writer.endObject()
      output.standardOutput(writer.text + "\n")
    } else {
      output.standardOutput("\(kind == .ingest ? "ingest key" : "read key"): \(key)\n")
    }
  }
}
