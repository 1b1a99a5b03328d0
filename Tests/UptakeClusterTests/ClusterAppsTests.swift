import Foundation
import Testing
import UptakeCluster
import UptakeTestSupport

/// Apps and keys kept whole on every server, converging after a server
/// missed a change.
@Suite("Apps and keys on two real shards", .serialized, .timeLimit(.minutes(3)))
struct ClusterAppsTests {
  static func record(_ appId: String, read: String, version: UInt64) -> ClusterApps.Record {
    ClusterApps.Record(
      appId: appId, ingestKeyHash: String(repeating: "a", count: 64),
      readKeyHash: String(repeating: read, count: 64), createdMs: 1_000, version: version)
  }

  @Test("a key rotated while a server was down wins on every server after a read")
  func converges() throws {
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let layout = try shards.migratedLayout()

    #expect(try ClusterApps.write(Self.record("shop", read: "1", version: 10), to: layout) == 2)
    #expect(try ClusterApps.write(Self.record("news", read: "2", version: 11), to: layout) == 2)
    shards.stop(1)
    // The rotation reaches the one server up.
    #expect(try ClusterApps.write(Self.record("shop", read: "3", version: 20), to: layout) == 1)
    #expect(try ClusterApps.read(layout).map(\.readKeyHash.first) == ["2", "3"])
    try shards.start(1)

    let read = try ClusterApps.read(layout)

    #expect(read.map(\.appId) == ["news", "shop"])
    #expect(read.first { $0.appId == "shop" }?.readKeyHash.first == "3")
    // The read gave the server that was down the newest row.
    let onSecond = try shards.query(
      1, "SELECT read_key_hash FROM uptake.apps FINAL WHERE app_id = 'shop'")
    #expect(onSecond.first == "3")
  }

  @Test("with no server up, a change and a read both fail")
  func allDown() throws {
    let shards = try ClickHouseShards(count: 1)
    let layout = try shards.migratedLayout(cluster: nil)
    shards.stopAll()

    #expect(throws: ClickHouseError.self) {
      try ClusterApps.write(Self.record("shop", read: "1", version: 1), to: layout)
    }
    #expect(throws: ClickHouseError.self) { try ClusterApps.read(layout) }
  }
}
