import Foundation
import UptakeCluster
import UptakeCore
import UptakeStore

/// `uptake updates put --app APPID FILE|-`
struct UpdatesPutCommand: Command {
  static let path = ["updates", "put"]
  static let summary = "load an app's update configuration (JSON) and make it live"
  static let help = """
    usage: uptake updates put --app APPID FILE|- [--db PATH | --clickhouse URL[,URL...]]

    Reads the app's update configuration, a JSON document {"updates": [...]}
    with at most one entry per platform, from FILE or, with -, from stdin.
    The document is checked as a whole: every problem is listed on stderr as
    "path: message" (e.g. updates[0].latestVersion: not a version) and
    nothing is stored. A valid document is stored as the app's next
    configuration version (earlier versions are kept, see uptake updates
    history) and is live in a running uptaked within a second; with
    --clickhouse, in the cluster, and on every node within a few seconds.
    Prints "app APPID: configuration version N is live (K entries)".

    options:
      --app APPID   the app (required)
      --db PATH     SQLite file (env UPTAKE_DB, default ./uptake.db)
    """ + ClusterArguments.help + "\n\n" + """
      exit codes: 0 stored, 64 usage, 65 invalid document or unknown app,
      66 database or FILE missing, 69 database busy or full (or no ClickHouse
      server answers), 74 I/O error.
      """

  let input: AppInputArguments
  let cluster: ClusterLayout?

  init(arguments: [String]) throws(CommandError) {
    input = try AppInputArguments(arguments, extraValueFlags: ClusterArguments.valueFlags)
    cluster = try ClusterArguments.layout(input.parsed)
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
    let version = try store(configuration)
    let count = configuration.entries.count
    output.standardOutput(
      "app \(input.appId): configuration version \(version) is live "
        + "(\(count) entr\(count == 1 ? "y" : "ies"))\n")
  }

  /// Stores the configuration as the app's next version, in the cluster
  /// or the database; returns the version.
  private func store(_ configuration: UpdateConfiguration) throws(CommandError) -> Int64 {
    if let cluster {
      let cluster = try ClusterArguments.ready(cluster)
      try ClusterArguments.requireApp(input.appId, in: cluster)
      do {
        return try ClusterUpdateConfigs.put(
          appId: input.appId, document: configuration.documentText, in: cluster,
          nowMs: WallClock.nowMs())
      } catch {
        throw .cluster(.cluster(error))
      }
    }
    let database = try StoreAccess.open(input.databasePath)
    let app = try StoreAccess.app(input.appId, in: database)
    do {
      return try UpdateConfigStore.put(
        configuration, appNo: app.appNo, in: database, nowMs: WallClock.nowMs())
    } catch {
      throw .store(error)
    }
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
