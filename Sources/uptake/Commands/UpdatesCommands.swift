import Foundation
import UptakeCore
import UptakeStore

/// `uptake updates put --app APPID FILE|-`
struct UpdatesPutCommand: Command {
  static let path = ["updates", "put"]
  static let summary = "load an app's update configuration (JSON) and make it live"
  static let help = """
    usage: uptake updates put --app APPID FILE|- [--db PATH]

    Reads the app's update configuration, a JSON document {"updates": [...]}
    with at most one entry per platform, from FILE or, with -, from stdin.
    The document is checked as a whole: every problem is listed on stderr as
    "path: message" (e.g. updates[0].latestVersion: not a version) and
    nothing is stored. A valid document is stored as the app's next
    configuration version (earlier versions are kept, see uptake updates
    history) and is live in a running uptaked within a second.
    Prints "app APPID: configuration version N is live (K entries)".

    options:
      --app APPID   the app (required)
      --db PATH     SQLite file (env UPTAKE_DB, default ./uptake.db)

    exit codes: 0 stored, 64 usage, 65 invalid document or unknown app,
    66 database or FILE missing, 69 database busy or full, 74 I/O error.
    """

  let input: AppInputArguments

  init(arguments: [String]) throws(CommandError) {
    input = try AppInputArguments(arguments)
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    let bytes = try readInput()
    let configuration: UpdateConfiguration
    switch UpdateConfigurationDecoder.decode(bytes) {
    case .success(let decoded):
      configuration = decoded
    case .failure(let error):
      let count = error.messages.count
      throw .data(
        "\(input.inputName): \(count) problem\(count == 1 ? "" : "s"), "
          + "nothing stored\n" + error.messages.map { "  " + $0 }.joined(separator: "\n"))
    }
    let database = try StoreAccess.open(input.databasePath)
    let app = try StoreAccess.app(input.appId, in: database)
    let version: Int64
    do {
      version = try UpdateConfigStore.put(
        configuration, appNo: app.appNo, in: database, nowMs: WallClock.nowMs())
    } catch {
      throw .store(error)
    }
    let count = configuration.entries.count
    output.standardOutput(
      "app \(app.appId): configuration version \(version) is live "
        + "(\(count) entr\(count == 1 ? "y" : "ies"))\n")
  }

  /// The whole document; more than the decoder's limit is refused unread.
  private func readInput() throws(CommandError) -> [UInt8] {
    let handle: FileHandle
    if input.inputPath == "-" {
      handle = FileHandle.standardInput
    } else {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: input.inputPath, isDirectory: &isDirectory),
        !isDirectory.boolValue, let opened = FileHandle(forReadingAtPath: input.inputPath)
      else {
        throw CommandError(
          message: "cannot read \(input.inputPath): no such file", exitCode: ExitCode.noInput)
      }
      handle = opened
    }
    defer { if input.inputPath != "-" { try? handle.close() } }
    let data: Data?
    do {
      data = try handle.read(upToCount: UpdateConfigurationDecoder.maxDocumentBytes + 1)
    } catch {
      throw CommandError(
        message: "cannot read \(input.inputPath): \(error.localizedDescription)",
        exitCode: ExitCode.ioError)
    }
    return Array(data ?? Data())
  }
}

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

  let appId: String
  let databasePath: String

  init(arguments: [String]) throws(CommandError) {
    let parsed = try Arguments(arguments, valueFlags: ["--db", "--app"], booleanFlags: [])
    guard parsed.positionals.isEmpty else {
      throw .usage("unexpected argument \(parsed.positionals[0])")
    }
    appId = try ReportOptions.appId(parsed)
    databasePath = parsed.databasePath
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    let database = try StoreAccess.open(databasePath)
    let app = try StoreAccess.app(appId, in: database)
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
