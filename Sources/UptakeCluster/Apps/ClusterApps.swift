import Foundation

/// Apps and their key hashes in the cluster, kept whole on every server.
///
/// There is no ZooKeeper to replicate a table, so every change is written
/// to every server as a row versioned by the time of the change, and every
/// read asks all servers and takes the newest version of each app. A
/// server that missed a change (it was down) is given the newest row by
/// the read that notices, so the servers converge without an operator.
public enum ClusterApps {
  /// One app as the cluster keeps it.
  public struct Record: Sendable, Equatable {
    public let appId: String
    /// SHA-256 of each key, lowercase hex.
    public let ingestKeyHash: String
    public let readKeyHash: String
    public let createdMs: Int64
    /// When this version was written; the newest wins.
    public let version: UInt64

    public init(
      appId: String, ingestKeyHash: String, readKeyHash: String, createdMs: Int64, version: UInt64
    ) {
      self.appId = appId
      self.ingestKeyHash = ingestKeyHash
      self.readKeyHash = readKeyHash
      self.createdMs = createdMs
      self.version = version
    }
  }

  /// Writes `record` to every server; returns how many took it. Throws
  /// when none did: the change is then nowhere. A server that missed it
  /// gets it from the next `read`.
  @discardableResult
  public static func write(_ record: Record, to layout: ClusterLayout) throws(ClickHouseError)
    -> Int
  {
    try layout.onEveryServer { server throws(ClickHouseError) in
      try insert([record], into: server, layout)
    }
  }

  /// The newest version of every app, from every server that answers;
  /// servers holding an older version (or none) are given the newest.
  /// Throws when no server answers.
  public static func read(_ layout: ClusterLayout) throws(ClickHouseError) -> [Record] {
    let held = try layout.fromEveryServer { server throws(ClickHouseError) in
      let text = try server.execute(
        """
        SELECT app_id, ingest_key_hash, read_key_hash, created_ms, version
        FROM \(layout.database).apps FINAL FORMAT TabSeparated
        """)
      return Dictionary(parse(text).map { ($0.appId, $0) }) { $1 }
    }
    var newest: [String: Record] = [:]
    for (_, records) in held {
      for (appId, record) in records where record.version > newest[appId]?.version ?? 0 {
        newest[appId] = record
      }
    }
    for (server, records) in held {
      let behind = newest.values.filter { records[$0.appId]?.version ?? 0 < $0.version }
      // A repair that fails is tried again by the next read.
      if !behind.isEmpty { try? insert(behind, into: server, layout) }
    }
    return newest.values.sorted { $0.appId < $1.appId }
  }

  private static func insert(
    _ records: [Record], into server: ClickHouseServer, _ layout: ClusterLayout
  )
    throws(ClickHouseError)
  {
    let rows = records.map {
      "\($0.appId)\t\($0.ingestKeyHash)\t\($0.readKeyHash)\t\($0.createdMs)\t\($0.version)\n"
    }.joined()
    try server.insert(
      "INSERT INTO \(layout.database).apps FORMAT TabSeparated", data: Data(rows.utf8))
  }

  /// Rows of `app_id, ingest, read, created, version`.
  static func parse(_ text: String) -> [Record] {
    TabSeparatedRows.parse(text).compactMap { fields in
      guard fields.count == 5, let created = Int64(fields[3]), let version = UInt64(fields[4])
      else { return nil }
      return Record(
        appId: fields[0], ingestKeyHash: fields[1], readKeyHash: fields[2], createdMs: created,
        version: version)
    }
  }
}
