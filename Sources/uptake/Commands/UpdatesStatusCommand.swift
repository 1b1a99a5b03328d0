import Foundation
import UptakeCluster
import UptakeCore
import UptakeStore

/// `uptake updates status --app APPID`
struct UpdatesStatusCommand: Command {
  static let path = ["updates", "status"]
  static let summary = "show what the App Store serves in each watched country"
  static let help = """
    usage: uptake updates status --app APPID [--db PATH | --clickhouse URL[,URL...]]

    For each entry of the app's live configuration that names its App Store
    app (appStore), one line per watched country: whether a version is live
    there (the grace passed since a lookup first showed it), not yet, or
    the app is not sold there; the versions seen with when each was first
    seen and when it became live (or becomes, marked *); and the last
    lookup with its outcome. The same as GET /v1/store, from the lookups
    the daemon has kept in the database. Checks offer a country only its
    live version, never above latestVersion.

    With --clickhouse, the watched entries and countries of the cluster's
    live configuration, with the App Store app and its grace, but not what
    the store serves: each node looks the store up itself and keeps what it
    saw in its own --db, so run the command with that --db on a node to see
    it. A note on stderr says so.

    options:
      --app APPID   the app (required)
      --db PATH     SQLite file (env UPTAKE_DB, default ./uptake.db)
    """ + ClusterArguments.help + "\n\n" + """
      exit codes: 0 shown, 64 usage, 65 unknown app, 66 database missing,
      69 database busy (or no ClickHouse server answers), 74 I/O error.
      """

  let arguments: AppArguments

  init(arguments: [String]) throws(CommandError) {
    self.arguments = try AppArguments(arguments)
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    if let cluster = arguments.cluster {
      try runInCluster(cluster, &output)
      return
    }
    let database = try StoreAccess.open(arguments.databasePath)
    let app = try StoreAccess.app(arguments.appId, in: database)
    let entries: [UpdateEntry]
    let kept: [StoreWatchRecords.Key: CountryStoreState]
    do {
      entries =
        try UpdateConfigStore.live(appNo: app.appNo, in: database)?.configuration?.entries ?? []
      kept = try StoreWatchRecords.load(database)
    } catch {
      throw .store(error)
    }
    let watched = entries.filter { $0.appStore != nil }
    guard !watched.isEmpty else {
      output.standardOutput(noneWatched)
      return
    }
    let now = WallClock.nowMs()
    var table = TextTable([
      .text("PLATFORM"), .text("COUNTRY"), .text("STATUS"), .text("LIVE"), .text("LATEST"),
      .text("VERSIONS SEEN (FIRST SEEN -> LIVE SINCE)"), .text("LAST LOOKUP"),
    ])
    for entry in watched {
      let watch = entry.appStore!
      for country in watch.countries {
        let state =
          kept[StoreWatchRecords.Key(appStoreId: watch.appId, country: country)]
          ?? CountryStoreState()
        table.append(
          Self.row(entry, watch, country, state, now: now))
      }
    }
    output.standardOutput(table.text)
  }

  /// The cluster's live configuration, without the lookups' state, which
  /// the cluster does not hold: the nodes keep it each in their own database.
  private func runInCluster(_ cluster: ClusterLayout, _ output: inout CommandOutput)
    throws(CommandError)
  {
    let live = try ClusterArguments.configurationVersions(of: arguments.appId, in: cluster).last
    let watched = (live?.configuration?.entries ?? []).filter { $0.appStore != nil }
    guard !watched.isEmpty else {
      output.standardOutput(noneWatched)
      return
    }
    var table = TextTable([
      .text("PLATFORM"), .text("COUNTRY"), .text("LATEST"), .text("APP STORE APP"),
      .number("GRACE HOURS"),
    ])
    for entry in watched {
      let watch = entry.appStore!
      for country in watch.countries {
        table.append([
          entry.platform.rawValue, country, entry.latestVersion.text, watch.appId,
          String(watch.graceHours),
        ])
      }
    }
    output.standardOutput(table.text)
    output.standardError(
      "what the App Store serves is kept by each node in its own database: "
        + "run uptake updates status --db PATH on a node\n")
  }

  private var noneWatched: String {
    "no entry of \(arguments.appId)'s live configuration names its App Store app (appStore)\n"
  }

  private static func row(
    _ entry: UpdateEntry, _ watch: AppStoreWatch, _ country: String, _ state: CountryStoreState,
    now: Int64
  ) -> [String] {
    let status = state.status(at: now, graceMs: watch.graceMs).rawValue
      .replacingOccurrences(of: "_", with: " ")
    let versions = state.seen.reversed().map { seen in
      let liveSince = state.liveSinceMs(seen.version, graceMs: watch.graceMs) ?? seen.firstSeenMs
      return "\(seen.version.text) (\(Timestamp.formatRFC3339(seen.firstSeenMs)) -> "
        + "\(Timestamp.formatRFC3339(liveSince))\(liveSince > now ? "*" : ""))"
    }
    let lookup = state.lastLookup.map { lookup in
      "\(Timestamp.formatRFC3339(lookup.atMs)) \(lookup.outcome)"
        + (lookup.detail.map { " (\($0))" } ?? "")
    }
    return [
      entry.platform.rawValue, country, status,
      state.live(at: now, graceMs: watch.graceMs)?.version.text ?? "-", entry.latestVersion.text,
      versions.isEmpty ? "-" : versions.joined(separator: ", "), lookup ?? "never",
    ]
  }
}
