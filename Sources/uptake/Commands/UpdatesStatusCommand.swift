import Foundation
import UptakeCore
import UptakeStore

/// `uptake updates status --app APPID`
struct UpdatesStatusCommand: Command {
  static let path = ["updates", "status"]
  static let summary = "show what the App Store serves in each watched country"
  static let help = """
    usage: uptake updates status --app APPID [--db PATH]

    For each entry of the app's live configuration that names its App Store
    app (appStore), one line per watched country: whether a version is live
    there (the grace passed since a lookup first showed it), not yet, or
    the app is not sold there; the versions seen with when each was first
    seen and when it became live (or becomes, marked *); and the last
    lookup with its outcome. The same as GET /v1/store, from the lookups
    the daemon has kept in the database. Checks offer a country only its
    live version, never above latestVersion.

    options:
      --app APPID   the app (required)
      --db PATH     SQLite file (env UPTAKE_DB, default ./uptake.db)
    """

  let arguments: AppArguments

  init(arguments: [String]) throws(CommandError) {
    self.arguments = try AppArguments(arguments)
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
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
      output.standardOutput(
        "no entry of \(arguments.appId)'s live configuration names its App Store app (appStore)\n")
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
