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

/// `uptake apps list`
struct AppsListCommand: Command {
  static let path = ["apps", "list"]
  static let summary = "list apps"
  static let help = """
    usage: uptake apps list [--json] [--db PATH]

    Lists every app with its creation time. Keys are never listed.

    options:
      --json      print {"apps": [{"appId", "createdAt"}]}
      --db PATH   SQLite file (env UPTAKE_DB, default ./uptake.db)
    """

  let json: Bool
  let databasePath: String

  init(arguments: [String]) throws(CommandError) {
    let parsed = try Arguments(arguments, valueFlags: ["--db"], booleanFlags: ["--json"])
    guard parsed.positionals.isEmpty else {
      throw .usage("unexpected argument \(parsed.positionals[0])")
    }
    json = parsed.has("--json")
    databasePath = parsed.databasePath
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    let database = try StoreAccess.open(databasePath)
    let apps: [AppRecord]
    do {
      apps = try AppRegistry.list(in: database)
    } catch {
      throw .store(error)
    }
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

/// `uptake apps rotate APPID --ingest|--read`
struct AppsRotateCommand: Command {
  static let path = ["apps", "rotate"]
  static let summary = "replace an app's ingest or read key"
  static let help = """
    usage: uptake apps rotate APPID --ingest|--read [--json] [--db PATH]

    Replaces one key of the app and prints the new one (shown only once).
    The old key stops working within a second, also in a running uptaked.

    options:
      --ingest    replace the ingest key
      --read      replace the read key
      --json      print {"appId", "ingestKey"} or {"appId", "readKey"}
      --db PATH   SQLite file (env UPTAKE_DB, default ./uptake.db)
    """

  let appId: String
  let kind: KeyKind
  let json: Bool
  let databasePath: String

  init(arguments: [String]) throws(CommandError) {
    let parsed = try Arguments(
      arguments, valueFlags: ["--db"], booleanFlags: ["--ingest", "--read", "--json"])
    guard parsed.positionals.count == 1 else { throw .usage("give exactly one APPID") }
    guard parsed.has("--ingest") != parsed.has("--read") else {
      throw .usage("give exactly one of --ingest and --read")
    }
    appId = parsed.positionals[0]
    kind = parsed.has("--ingest") ? .ingest : .read
    json = parsed.has("--json")
    databasePath = parsed.databasePath
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    let database = try StoreAccess.open(databasePath)
    let key: String
    do {
      key = try AppRegistry.rotate(appId, kind: kind, in: database)
    } catch {
      throw .store(error)
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
