import Foundation
import UptakeCore
import UptakeStore

/// Keeps a node's own apps table, which its key directory answers from
/// (in memory, reloaded when the table changes), equal to the cluster's
/// apps: every node then takes the same keys, and a key rotated through
/// any node's CLI stops working on all of them at the next sync.
public enum ClusterAppsMirror {
  /// Reads the cluster's apps and makes the node's table agree: an app the
  /// cluster holds is added, or its keys replaced, when the node's differ.
  /// An app only the node holds (the default app a node's first start
  /// made while the cluster had none) is published to the cluster.
  @discardableResult
  public static func sync(_ layout: ClusterLayout, into database: Database, nowMs: Int64) throws
    -> MirrorOutcome
  {
    let cluster = try ClusterApps.read(layout)
    let keys = try cluster.map { record throws(BadHash) in
      (record, try hashBytes(record.ingestKeyHash), try hashBytes(record.readKeyHash))
    }
    var outcome = MirrorOutcome()
    let local = try localApps(database)
    try database.write { () throws(StoreError) in
      for (record, ingest, read) in keys {
        guard let held = local[record.appId] else {
          let insert = try database.statement(
            "INSERT INTO apps (app_id, ingest_key_hash, read_key_hash, created_at) VALUES (?, ?, ?, ?)"
          )
          try insert.bind(1, record.appId)
          try insert.bind(2, ingest)
          try insert.bind(3, read)
          try insert.bind(4, record.createdMs)
          try insert.run()
          outcome.mirrored += 1
          continue
        }
        guard held.ingest != ingest || held.read != read else { continue }
        let update = try database.statement(
          "UPDATE apps SET ingest_key_hash = ?, read_key_hash = ? WHERE app_id = ?")
        try update.bind(1, ingest)
        try update.bind(2, read)
        try update.bind(3, record.appId)
        try update.run()
        outcome.mirrored += 1
      }
    }
    let known = Set(cluster.map(\.appId))
    for (appId, held) in local.sorted(by: { $0.key < $1.key }) where !known.contains(appId) {
      try ClusterApps.write(
        ClusterApps.Record(
          appId: appId, ingestKeyHash: Hex.encode(held.ingest), readKeyHash: Hex.encode(held.read),
          createdMs: held.createdMs, version: UInt64(max(0, nowMs))),
        to: layout)
      outcome.published += 1
    }
    return outcome
  }

  /// The node's apps with their key hashes, by app id.
  private static func localApps(_ database: Database) throws(StoreError) -> [String: (
    ingest: [UInt8], read: [UInt8], createdMs: Int64
  )] {
    let statement = try database.statement(
      "SELECT app_id, ingest_key_hash, read_key_hash, created_at FROM apps")
    defer { statement.reset() }
    var apps: [String: (ingest: [UInt8], read: [UInt8], createdMs: Int64)] = [:]
    while try statement.step() {
      apps[statement.string(0)] = (statement.blob(1), statement.blob(2), statement.int64(3))
    }
    return apps
  }

  struct BadHash: Error, CustomStringConvertible {
    let text: String
    var description: String { "a key hash in the cluster is not 64 hex digits: \"\(text)\"" }
  }

  /// A hash as the node's table keeps it (bytes).
  static func hashBytes(_ text: String) throws(BadHash) -> [UInt8] {
    guard text.utf8.count == 64, let bytes = Hex.decode(text) else { throw BadHash(text: text) }
    return bytes
  }
}
