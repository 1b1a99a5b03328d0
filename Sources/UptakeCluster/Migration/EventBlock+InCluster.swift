import UptakeCore

extension EventBlock {
  /// Keys asked about in one query: their literals stay well inside
  /// `maxQueryBytes` for ids up to the contract's longest.
  static let keysPerQuery = 10_000
  /// ClickHouse parses at most 256 KiB of a query by default; a query
  /// naming 10,000 ids needs more.
  static let maxQueryBytes = 16 << 20

  /// The keys of this block's events that the cluster's `events` holds
  /// already: the events of a block that a killed run may have inserted,
  /// in whole or on some shards only. Asked by app, day and id, the
  /// table's sorting key, so each shard reads only the granules they fall
  /// in.
  func inCluster(_ layout: ClusterLayout) throws(NoServerAnswered) -> Set<Key> {
    var present = Set<Key>()
    var start = keys.startIndex
    while start < keys.endIndex {
      let chunk = keys[start..<min(start + Self.keysPerQuery, keys.endIndex)]
      start = chunk.endIndex
      let appIds = Set(chunk.map(\.appId)).sorted().map(ClusterReports.quoted).joined(
        separator: ",")
      let days = Set(chunk.map(\.day)).sorted().map(ClusterReports.quoted).joined(separator: ",")
      let ids = Set(chunk.map(\.id)).sorted().map(ClusterReports.quoted).joined(separator: ",")
      let sql = """
        SELECT app_id, toString(day), hex(id) FROM \(layout.database).events
        WHERE app_id IN (\(appIds)) AND day IN (\(days)) AND id IN (\(ids))
        FORMAT TabSeparated
        """
      let answer = try layout.fromFirstServer { server throws(ClickHouseError) in
        try server.execute(sql, settings: ["max_query_size": String(Self.maxQueryBytes)])
      }
      for fields in TabSeparatedRows.parse(answer) {
        guard fields.count == 3, let id = Hex.decode(fields[2]) else { continue }
        present.insert(
          Key(appId: fields[0], day: fields[1], id: String(decoding: id, as: UTF8.self)))
      }
    }
    return present.intersection(keys)
  }
}
