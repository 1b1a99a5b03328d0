import UptakeCore

/// The App Store watch's state kept in the database (schema/0017), so a
/// restart keeps when each version was first seen: forgetting it would
/// start every country's grace again.
public enum StoreWatchRecords {
  /// An App Store app in one country.
  public struct Key: Hashable, Sendable {
    public let appStoreId: String
    public let country: String

    public init(appStoreId: String, country: String) {
      self.appStoreId = appStoreId
      self.country = country
    }
  }

  /// Every country's kept state, or only those of one App Store app.
  public static func load(_ database: Database, appStoreId: String? = nil) throws(StoreError)
    -> [Key: CountryStoreState]
  {
    var seen: [Key: [CountryStoreState.SeenVersion]] = [:]
    let versions = try database.statement(
      """
      SELECT app_store_id, country, version, first_seen_at, minimum_os_version
      FROM app_store_versions WHERE ?1 IS NULL OR app_store_id = ?1
      """)
    try versions.bind(1, appStoreId)
    while try versions.step() {
      guard let version = Version(versions.string(2)) else { continue }
      let key = Key(appStoreId: versions.string(0), country: versions.string(1))
      seen[key, default: []].append(
        CountryStoreState.SeenVersion(
          version: version, firstSeenMs: versions.int64(3),
          minimumOsVersion: versions.isNull(4) ? nil : Version(versions.string(4))))
    }
    versions.reset()
    var states: [Key: CountryStoreState] = [:]
    let lookups = try database.statement(
      """
      SELECT app_store_id, country, looked_up_at, outcome, detail, failures_in_a_row, not_sold
      FROM app_store_lookups WHERE ?1 IS NULL OR app_store_id = ?1
      """)
    try lookups.bind(1, appStoreId)
    while try lookups.step() {
      let key = Key(appStoreId: lookups.string(0), country: lookups.string(1))
      states[key] = CountryStoreState(
        seen: seen[key] ?? [],
        lastLookup: CountryStoreState.Lookup(
          atMs: lookups.int64(2), outcome: lookups.string(3),
          detail: lookups.isNull(4) ? nil : lookups.string(4)),
        notSold: lookups.int(6) != 0, failuresInARow: lookups.int(5))
    }
    lookups.reset()
    for (key, versions) in seen where states[key] == nil {
      states[key] = CountryStoreState(
        seen: versions, lastLookup: nil, notSold: false, failuresInARow: 0)
    }
    return states
  }

  /// Keeps `state` as the country's, in one transaction.
  public static func save(_ state: CountryStoreState, for key: Key, in database: Database)
    throws(StoreError)
  {
    try database.write { () throws(StoreError) in
      let version = try database.statement(
        """
        INSERT OR IGNORE INTO app_store_versions
          (app_store_id, country, version, first_seen_at, minimum_os_version)
        VALUES (?, ?, ?, ?, ?)
        """)
      for seen in state.seen {
        try version.bind(1, key.appStoreId)
        try version.bind(2, key.country)
        try version.bind(3, seen.version.text)
        try version.bind(4, seen.firstSeenMs)
        try version.bind(5, seen.minimumOsVersion?.text)
        try version.run()
      }
      guard let lookup = state.lastLookup else { return }
      let last = try database.statement(
        """
        INSERT OR REPLACE INTO app_store_lookups
          (app_store_id, country, looked_up_at, outcome, detail, failures_in_a_row, not_sold)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """)
      try last.bind(1, key.appStoreId)
      try last.bind(2, key.country)
      try last.bind(3, lookup.atMs)
      try last.bind(4, lookup.outcome)
      try last.bind(5, lookup.detail)
      try last.bind(6, state.failuresInARow)
      try last.bind(7, state.notSold ? 1 : 0)
      try last.run()
    }
  }
}
