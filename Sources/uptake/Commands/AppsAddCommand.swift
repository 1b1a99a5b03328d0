import Foundation
import UptakeCore
import UptakeStore

/// `uptake apps add APPID [--json]`
struct AppsAddCommand: Command {
  static let path = ["apps", "add"]
  static let summary = "create an app and print its keys (shown only once)"
  static let help = """
    usage: uptake apps add APPID [--json] [--db PATH]

    Creates an app with a fresh ingest key (ships inside the mobile app, can
    only post events) and read key (secret, reads reports), and prints both.
    They are stored only as hashes: this is the one time they are shown.
    Creates the database when it does not exist yet.

    options:
      --json      print exactly one JSON object {"appId", "ingestKey", "readKey"}
      --db PATH   SQLite file (env UPTAKE_DB, default ./uptake.db)
    """

  let appId: String
  let json: Bool
  let databasePath: String

  init(arguments: [String]) throws(CommandError) {
    let parsed = try Arguments(arguments, valueFlags: ["--db"], booleanFlags: ["--json"])
    guard parsed.positionals.count == 1 else { throw .usage("give exactly one APPID") }
    appId = parsed.positionals[0]
    guard AppID.isValid(appId) else {
      throw .usage(
        "invalid APPID \"\(appId)\": use 1-63 of a-z, 0-9 and -, starting with a letter or digit")
    }
    json = parsed.has("--json")
    databasePath = parsed.databasePath
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    let database = try StoreAccess.open(databasePath, create: true)
    let keys: NewAppKeys
    do {
      keys = try AppRegistry.add(appId, in: database, nowMs: WallClock.nowMs())
    } catch {
      throw .store(error)
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
