import Foundation
import UptakeCluster
import UptakeCore
import UptakeStore

/// `uptake migrate-to-clickhouse`: a one-box database into a cluster.
struct MigrateToClickHouseCommand: Command {
  static let path = ["migrate-to-clickhouse"]
  static let summary = "copy a one-box database into a ClickHouse cluster"
  static let help = """
    usage: uptake migrate-to-clickhouse --clickhouse URL[,URL...] [--db PATH]
                                        [--replace-keys] [--block-events N]

    Copies a one-box uptaked's database into the ClickHouse cluster of
    uptaked nodes: makes or migrates the cluster's schema, then copies every
    app with its keys (the apps' clients keep working against the nodes),
    every version of every app's update configuration, and every event, in
    the order stored. The database is opened read-only and left as it is;
    a one-box uptaked may keep running on it.

    Every event lands in the cluster once, as one row. The cluster records
    how far the copy got: run the command again after it was stopped or
    killed, or to copy the events the one box took since, and it carries on
    where it left off. An app or configuration version the cluster holds
    already, the same, is left as it is; one that differs is an error.
    Progress goes to stderr; at the end one line for each of apps,
    configuration versions and events goes to stdout.

    options:
      --db PATH      the one-box SQLite file (env UPTAKE_DB, default ./uptake.db)
      --replace-keys an app the cluster holds with other keys (a node's first
                     start makes an app "default") takes this database's keys,
                     and the cluster's keys for it stop working
      --block-events N
                     events in one insert (default 50000)
      --clickhouse URL[,URL...]
                     the cluster's servers, http://HOST:PORT (required;
                     env UPTAKE_CLICKHOUSE)
      --clickhouse-database NAME
                     its database (env UPTAKE_CLICKHOUSE_DATABASE, default uptake)
      --clickhouse-cluster NAME
                     its cluster in remote_servers (env UPTAKE_CLICKHOUSE_CLUSTER)

    exit codes: 0 done, 64 usage, 65 not a one-box database or a conflict
    with the cluster, 66 database missing, 69 cluster unavailable, 74 read
    error.
    """

  static let defaultBlockEvents = 50_000
  /// How often progress is written to stderr.
  static let progressIntervalSeconds = 2.0

  let databasePath: String
  let cluster: ClusterLayout
  let replacingKeys: Bool
  let blockEvents: Int

  init(arguments: [String]) throws(CommandError) {
    let parsed = try Arguments(
      arguments, valueFlags: ClusterArguments.valueFlags.union(["--db", "--block-events"]),
      booleanFlags: ["--replace-keys"])
    guard parsed.positionals.isEmpty else {
      throw .usage("unexpected argument \(parsed.positionals[0])")
    }
    guard let cluster = try ClusterArguments.layout(parsed) else {
      throw .usage("name the cluster to copy into: --clickhouse URL[,URL...]")
    }
    self.cluster = cluster
    databasePath = parsed.databasePath
    replacingKeys = parsed.has("--replace-keys")
    if let text = parsed.value("--block-events") {
      guard let count = Int(text), count > 0 else {
        throw .usage("--block-events needs a whole number above 0, not \"\(text)\"")
      }
      blockEvents = count
    } else {
      blockEvents = Self.defaultBlockEvents
    }
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    let source = try openSource()
    let migration = OneBoxMigration(
      source: source, layout: try ClusterArguments.ready(cluster), blockEvents: blockEvents,
      replacingKeys: replacingKeys)
    let started = Date()
    var lastShown = Date.distantPast
    // The rate is this run's: events an earlier run shipped are not its.
    var doneAtStart: Int64?
    let outcome: OneBoxMigration.Outcome
    do {
      outcome = try migration.run { done, total in
        let now = Date()
        let first = doneAtStart ?? done
        doneAtStart = first
        guard now.timeIntervalSince(lastShown) >= Self.progressIntervalSeconds || done == total
        else { return }
        lastShown = now
        let rate = Double(done - first) / max(0.001, now.timeIntervalSince(started))
        output.standardError(
          "events: \(done) of \(total) in the cluster, \(Int(rate)) a second\n")
      }
    } catch {
      switch error {
      case .conflict(let message): throw .data(message)
      case .source(let failure): throw .store(failure)
      case .cluster(let message):
        throw CommandError(message: message, exitCode: ExitCode.unavailable)
      }
    }
    output.standardOutput(
      """
      apps: \(outcome.appsAdded) added, \(outcome.appsKeysReplaced) given this database's keys, \
      \(outcome.appsAlreadyThere) already in the cluster
      configuration versions: \(outcome.configurationsAdded) added, \
      \(outcome.configurationsAlreadyThere) already in the cluster
      events: \(outcome.eventsShipped) shipped, \(outcome.eventsFoundInCluster) found in the \
      cluster from a stopped run, \(outcome.eventsTotal) in all

      """)
  }

  private func openSource() throws(CommandError) -> OneBoxSource {
    guard FileManager.default.fileExists(atPath: databasePath) else {
      throw CommandError(
        message: "database \(databasePath) does not exist", exitCode: ExitCode.noInput)
    }
    do {
      return try OneBoxSource(path: databasePath)
    } catch {
      switch error {
      case .notOneBox(let message): throw .data(message)
      case .store(let failure):
        if failure.sqliteCode == 14 {  // SQLITE_CANTOPEN
          throw CommandError(
            message: "cannot open database \(databasePath)", exitCode: ExitCode.noInput)
        }
        throw .store(failure)
      }
    }
  }
}
