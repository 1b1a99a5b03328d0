/// Where a node keeps events in ClickHouse: the servers it was given, the
/// database, and the cluster (in the servers' `remote_servers`) whose
/// shards hold the events, or none for one server.
public struct ClusterLayout: Sendable {
  public let servers: [ClickHouseServer]
  public let database: String
  public let cluster: String?

  /// Names that go into SQL as they are, so only plain identifiers.
  public static func isIdentifier(_ name: String) -> Bool {
    guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
      name.utf8.count <= 64
    else { return false }
    return name.utf8.allSatisfy { byte in
      (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }
  }

  public init(servers: [ClickHouseServer], database: String, cluster: String?) {
    precondition(Self.isIdentifier(database), "database names are checked where they are read")
    precondition(cluster.map(Self.isIdentifier) ?? true, "cluster names are checked where read")
    self.servers = servers
    self.database = database
    self.cluster = cluster
  }

  /// The table a node inserts events into: `events` over a cluster, which
  /// sends each to its shard; on one server the local table itself, since
  /// a Merge table reads but takes no inserts.
  public var insertTable: String {
    cluster == nil ? "\(database).events_local" : "\(database).events"
  }

  /// Every shard's `events_local` as one table to read from, with the
  /// columns `events` does not declare (`install_key`, schema/clickhouse/
  /// 0009): the cluster() table function over a cluster, on one server the
  /// local table itself.
  var localEventsOfEveryShard: String {
    guard let cluster else { return "\(database).events_local" }
    return "cluster('\(cluster)', \(database), events_local)"
  }

  /// The engine of `events`. Over a cluster, a Distributed table sharded
  /// by the install, or by the event's id when it has none: every retry
  /// of an event, and all of an install's events, on one shard, so
  /// distinct counts and the funnel are exact shard by shard. On one
  /// server, the local table under the same name.
  /// The engine of a table read across the cluster over each server's
  /// `local` table (the aggregates), or the local table itself on one
  /// server.
  func readEngine(over local: String) -> String {
    guard let cluster else { return "Merge(\(database), '^\(local)$')" }
    return "Distributed(\(cluster), \(database), \(local))"
  }

  var eventsEngine: String {
    guard let cluster else { return "Merge(\(database), '^events_local$')" }
    return
      "Distributed(\(cluster), \(database), events_local, cityHash64(app_id, if(install_id = '', id, install_id)))"
  }
}
