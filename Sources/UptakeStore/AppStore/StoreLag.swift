import UptakeCore

/// How long one country's App Store lagged behind the configuration
/// (issue 24): from the put that first named the entry's latestVersion to
/// when that version went live there. The update report and the funnel
/// show it, so a product team reading a slow start can tell a store that
/// did not serve the update from users who would not take it.
public struct StoreLag: Sendable, Equatable {
  public let country: String
  public let version: Version
  /// When the configuration first named `version` (of the latest run of
  /// puts that all name it).
  public let configuredAtMs: Int64
  /// When a lookup in the country first showed it or a higher version.
  public let firstSeenMs: Int64?
  /// When it went live there (or will, the grace after `firstSeenMs`).
  public let liveSinceMs: Int64?

  /// Hours from the configuration to the store serving the version past
  /// its grace; 0 when the store had it first; nil while it is not live.
  public func lagHours(nowMs: Int64) -> Double? {
    guard let liveSinceMs, liveSinceMs <= nowMs else { return nil }
    return Double(max(0, liveSinceMs - configuredAtMs)) / 3_600_000
  }

  /// The lag of each country `entry` (the live configuration's, of app
  /// `appNo`) watches; empty, without reading anything, when it watches
  /// none, as for most updates of most apps.
  public static func of(appNo: Int64, entry: UpdateEntry?, in database: Database)
    throws(StoreError) -> [StoreLag]
  {
    guard let entry, let watch = entry.appStore else { return [] }
    let history = try UpdateConfigStore.history(appNo: appNo, in: database)
    var configuredAt = history.last?.createdAtMs ?? 0
    for stored in history.reversed() {
      guard
        stored.configuration?.entry(updateId: entry.updateId)?.latestVersion
          == entry.latestVersion
      else { break }
      configuredAt = stored.createdAtMs
    }
    let kept = try StoreWatchRecords.load(database, appStoreId: watch.appId)
    return watch.countries.map { country in
      let state = kept[StoreWatchRecords.Key(appStoreId: watch.appId, country: country)]
      return StoreLag(
        country: country, version: entry.latestVersion, configuredAtMs: configuredAt,
        firstSeenMs: state?.liveSinceMs(entry.latestVersion, graceMs: 0),
        liveSinceMs: state?.liveSinceMs(entry.latestVersion, graceMs: watch.graceMs))
    }
  }
}
