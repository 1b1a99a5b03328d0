import Foundation
import UptakeCore

/// How far a one-box database's events have been copied into the cluster,
/// as the cluster records it (`schema/clickhouse/0006_migrations.sql`):
/// on every server, each step a new row whose version orders the steps.
///
/// Every server must take a step and answer a read: a server that is down
/// may hold the newest step, and without it no event can be inserted
/// anyway (`insert_distributed_sync` needs every shard).
public struct MigrationProgress: Sendable, Equatable {
  /// Every event up to this seq is in the cluster.
  public var shippedSeq: Int64
  /// The last seq of the block being inserted; above `shippedSeq` while an
  /// insert is, or may have been, under way.
  public var inFlightSeq: Int64

  public init(shippedSeq: Int64, inFlightSeq: Int64) {
    self.shippedSeq = shippedSeq
    self.inFlightSeq = inFlightSeq
  }

  /// Whether a run may have stopped during an insert.
  public var mayHaveBlockInFlight: Bool { inFlightSeq > shippedSeq }

  /// Steps only go forward: the intent to ship up to `seq` (`2 seq`), then
  /// its end (`2 seq + 1`), the next block's seq above both.
  var version: UInt64 {
    UInt64(max(0, inFlightSeq)) * 2 + (mayHaveBlockInFlight ? 0 : 1)
  }

  /// The newest step recorded for `sourceId`; nothing shipped when none is.
  static func read(sourceId: String, in layout: ClusterLayout) throws(ClickHouseError)
    -> MigrationProgress
  {
    var newest = MigrationProgress(shippedSeq: 0, inFlightSeq: 0)
    var newestVersion: UInt64 = 0
    for server in layout.servers {
      let text = try server.execute(
        """
        SELECT shipped_seq, in_flight_seq, version FROM \(layout.database).migrations
        WHERE source_id = '\(sourceId)' ORDER BY version DESC LIMIT 1 FORMAT TabSeparated
        """)
      let fields = text.split(whereSeparator: { $0 == "\t" || $0 == "\n" })
      guard fields.count == 3, let shipped = Int64(fields[0]), let inFlight = Int64(fields[1]),
        let version = UInt64(fields[2]), version >= newestVersion
      else { continue }
      newest = MigrationProgress(shippedSeq: shipped, inFlightSeq: inFlight)
      newestVersion = version
    }
    return newest
  }

  /// Records this step for `sourceId` on every server.
  func write(sourceId: String, sourcePath: String, to layout: ClusterLayout)
    throws(ClickHouseError)
  {
    var json = JSONWriter()
    json.beginObject()
    json.member("source_id", sourceId)
    json.member("source_path", sourcePath)
    json.key("shipped_seq")
    json.value(shippedSeq)
    json.key("in_flight_seq")
    json.value(inFlightSeq)
    json.key("version")
    json.value(Int64(version))
    json.endObject()
    for server in layout.servers {
      try server.insert(
        "INSERT INTO \(layout.database).migrations FORMAT JSONEachRow", data: Data(json.bytes))
    }
  }
}
