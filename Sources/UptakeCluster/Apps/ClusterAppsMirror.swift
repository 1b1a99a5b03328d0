import Foundation
import UptakeCore
import UptakeStore

/// Keeps a node's own apps table, which its key directory answers from
/// (in memory, reloaded when the table changes), equal to the cluster's
/// apps: every node then takes the same keys, and a key rotated through
/// any node's CLI stops working on all of them at the next sync.
public enum ClusterAppsMirror {
  /// What a sync changed.
  public struct Outcome: Sendable, Equatable {
    /// Apps added to the node's table, or whose keys it replaced.
    public var mirrored = 0
    /// Apps only the node had, written to the cluster.
    public var published = 0
  }

  /// Reads the cluster's apps and makes the node's table agree: an app the
  /// cluster holds is added, or its keys replaced, when the node's differ.
  /// An app only the node holds (the default app a node's first start
  /// made while the cluster had none) is published to the cluster.
  @discardableResult
  public static func sync(_ layout: ClusterLayout, into database: Database, nowMs: Int64) throws
    -> Outcome
  {
    let cluster = try ClusterApps.read(layout)
    let keys = try cluster.map { record throws(BadHash) in
      (record, try hashBytes(record.ingestKeyHash), try hashBytes(record.readKeyHash))
    }
    var outcome = Outcome()
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
          appId: appId, ingestKeyHash: hex(held.ingest), readKeyHash: hex(held.read),
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

  /// A hash as the cluster writes it (lowercase hex) and as the node's
  /// table keeps it (bytes).
  public static func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  struct BadHash: Error, CustomStringConvertible {
    let text: String
    var description: String { "a key hash in the cluster is not 64 hex digits: \"\(text)\"" }
  }

  static func hashBytes(_ text: String) throws(BadHash) -> [UInt8] {
    let utf8 = Array(text.utf8)
    guard utf8.count == 64 else { throw BadHash(text: text) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(32)
    for index in stride(from: 0, to: 64, by: 2) {
      guard let high = hexValue(utf8[index]), let low = hexValue(utf8[index + 1]) else {
        throw BadHash(text: text)
      }
      bytes.append(high << 4 | low)
    }
    return bytes
  }

  private static func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
