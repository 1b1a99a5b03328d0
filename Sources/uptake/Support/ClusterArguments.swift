import Foundation
import UptakeCluster
import UptakeCore

/// `--clickhouse URL[,URL...]`, `--clickhouse-database NAME` and
/// `--clickhouse-cluster NAME` on the commands that work in a cluster of
/// uptaked nodes instead of in `--db` (env `UPTAKE_CLICKHOUSE` and its
/// companions, as for `uptaked`).
enum ClusterArguments {
  static let valueFlags = Set(ClusterOptions.flags.keys)

  /// The lines the commands' help gives them, after its own options.
  static let help =
    "\n" + """
        --clickhouse URL[,URL...]
                    work in the ClickHouse cluster of uptaked nodes, at these
                    servers (http://HOST:PORT), instead of in --db
                    (env UPTAKE_CLICKHOUSE)
        --clickhouse-database NAME
                    its database (env UPTAKE_CLICKHOUSE_DATABASE, default uptake)
        --clickhouse-cluster NAME
                    its cluster in remote_servers (env UPTAKE_CLICKHOUSE_CLUSTER)
      """

  /// The cluster the arguments and environment name, nil for none.
  static func layout(_ parsed: Arguments) throws(CommandError) -> ClusterLayout? {
    var options: ClusterOptions
    do {
      options = try ClusterOptions(environment: ProcessInfo.processInfo.environment)
      for flag in ClusterOptions.flags.keys.sorted() {
        if let value = parsed.value(flag) { try options.set(flag, to: value) }
      }
    } catch {
      throw .usage(error.description)
    }
    return options.layout()
  }

  /// `layout` with its schema made, so a command may run before any node
  /// has started.
  static func ready(_ layout: ClusterLayout) throws(CommandError) -> ClusterLayout {
    do {
      try ClusterSchema.migrate(layout, nowMs: WallClock.nowMs())
    } catch {
      throw CommandError(message: error.description, exitCode: ExitCode.unavailable)
    }
    return layout
  }
}

extension ClusterArguments {
  /// Refuses an app the cluster does not hold (exit 65, as on one box).
  static func requireApp(_ appId: String, in layout: ClusterLayout) throws(CommandError) {
    let apps: [ClusterApps.Record]
    do {
      apps = try ClusterAppAdmin.list(layout)
    } catch {
      throw .cluster(error)
    }
    guard apps.contains(where: { $0.appId == appId }) else {
      throw .data("unknown app \"\(appId)\" in the cluster (see uptake apps list --clickhouse ...)")
    }
  }
}

extension ClusterArguments {
  /// Every version of the app's configuration in the cluster, oldest
  /// first, its schema made and the app checked first.
  static func configurationVersions(of appId: String, in layout: ClusterLayout)
    throws(CommandError) -> [ClusterUpdateConfigs.Record]
  {
    let layout = try ready(layout)
    try requireApp(appId, in: layout)
    do {
      return try ClusterUpdateConfigs.versions(of: appId, in: layout)
    } catch {
      throw .cluster(.cluster(error))
    }
  }
}

extension CommandError {
  /// Maps a change the cluster refused: an app that exists or does not is
  /// bad input, a cluster that cannot be reached is "unavailable".
  static func cluster(_ failure: ClusterAppAdmin.Failure) -> CommandError {
    switch failure {
    case .conflict, .notFound:
      CommandError(message: failure.description, exitCode: ExitCode.dataError)
    case .cluster:
      CommandError(message: failure.description, exitCode: ExitCode.unavailable)
    }
  }
}
