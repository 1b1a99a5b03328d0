import UptakeCluster
import UptakeTestSupport

extension ClickHouseShards {
  /// The layout of these shards as a node names them: database `uptake`,
  /// over the shards' cluster (or, with `cluster: nil`, one server), its
  /// schema made.
  func migratedLayout(cluster: String? = ClickHouseShards.clusterName) throws -> ClusterLayout {
    let layout = ClusterLayout(
      servers: urls.map { ClickHouseServer(url: $0, timeoutSeconds: 5) },
      database: "uptake", cluster: cluster)
    try ClusterSchema.migrate(layout, nowMs: 1_796_160_000_000)
    return layout
  }
}
