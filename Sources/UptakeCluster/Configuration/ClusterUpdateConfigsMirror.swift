import UptakeCore
import UptakeStore

/// Keeps a node's own update configurations, which its checks answer from
/// (in memory, reloaded when the table changes), equal to the cluster's:
/// a configuration put through any node's CLI is live on every node at
/// the next sync. Runs after `ClusterAppsMirror`, so every app the
/// cluster's configurations name is in the node's table.
public enum ClusterUpdateConfigsMirror {
  /// Takes the versions the node lacks, and publishes those it has above
  /// the cluster's newest. Two puts that chose one version number in
  /// different places are not reconciled: the later write wins in the
  /// cluster, and a node that holds the other keeps it until a newer put.
  @discardableResult
  public static func sync(_ layout: ClusterLayout, into database: Database, nowMs: Int64) throws
    -> MirrorOutcome
  {
    let cluster = try ClusterUpdateConfigs.latestVersions(layout)
    let local = try localLatest(database)
    var outcome = MirrorOutcome()
    if cluster.contains(where: { $0.value > local[$0.key]?.version ?? 0 }) {
      let missing = try ClusterUpdateConfigs.read(layout, after: local.mapValues(\.version))
      try database.write { () throws(StoreError) in
        for record in missing {
          var appNo = local[record.appId]?.appNo
          if appNo == nil { appNo = try Self.appNo(of: record.appId, database) }
          guard let appNo else { continue }
          let insert = try database.statement(
            """
            INSERT OR IGNORE INTO update_configs (app_no, version, created_at, document)
            VALUES (?, ?, ?, ?)
            """)
          try insert.bind(1, appNo)
          try insert.bind(2, record.version)
          try insert.bind(3, record.createdMs)
          try insert.bind(4, record.document)
          try insert.run()
          outcome.mirrored += database.changes
        }
      }
    }
    var unpublished: [ClusterUpdateConfigs.Record] = []
    for (appId, held) in local where held.version > cluster[appId] ?? 0 {
      for stored in try UpdateConfigStore.history(appNo: held.appNo, in: database)
      where stored.version > cluster[appId] ?? 0 {
        unpublished.append(
          ClusterUpdateConfigs.Record(
            appId: appId, version: stored.version, createdMs: stored.createdAtMs,
            document: stored.documentText))
      }
    }
    try ClusterUpdateConfigs.publish(unpublished, to: layout, nowMs: nowMs)
    outcome.published = unpublished.count
    return outcome
  }

  /// Each app with a configuration: its number here and newest version.
  private static func localLatest(_ database: Database) throws(StoreError) -> [String: (
    appNo: Int64, version: Int64
  )] {
    let statement = try database.statement(
      """
      SELECT a.app_id, a.app_no, max(c.version) FROM update_configs c
      JOIN apps a ON a.app_no = c.app_no GROUP BY a.app_no
      """)
    defer { statement.reset() }
    var latest: [String: (appNo: Int64, version: Int64)] = [:]
    while try statement.step() {
      latest[statement.string(0)] = (statement.int64(1), statement.int64(2))
    }
    return latest
  }

  private static func appNo(of appId: String, _ database: Database) throws(StoreError) -> Int64? {
    try AppRegistry.find(appId, in: database)?.appNo
  }
}
