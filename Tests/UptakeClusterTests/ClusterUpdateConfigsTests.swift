import Foundation
import Testing
import UptakeCluster
import UptakeTestSupport

@Suite("Update configurations on two real shards", .serialized)
struct ClusterUpdateConfigsTests {
  @Test("versions number on from the newest; a server that missed a put gets it at a read")
  func versionsAndRepair() throws {
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let layout = try shards.migratedLayout()
    // Tabs, newlines, quotes and a backslash travel as they are.
    let document = "{\"updates\": [],\n\t\"note\": \"a \\\"quoted\\\" \\\\ é\"}"
    #expect(
      try ClusterUpdateConfigs.put(appId: "shop", document: document, in: layout, nowMs: 1) == 1)

    shards.stop(1)
    #expect(try ClusterUpdateConfigs.put(appId: "shop", document: "{}", in: layout, nowMs: 2) == 2)
    try shards.start(1)
    #expect(try shards.query(1, "SELECT max(version) FROM uptake.update_configs FINAL") == "1\n")

    let read = try ClusterUpdateConfigs.read(layout, after: [:])
    #expect(read.map(\.version) == [1, 2])
    #expect(read.first?.document == document)
    #expect(try ClusterUpdateConfigs.latestVersions(layout) == ["shop": 2])
    #expect(try ClusterUpdateConfigs.read(layout, after: ["shop": 1]).map(\.version) == [2])
    #expect(
      try shards.query(1, "SELECT max(version) FROM uptake.update_configs FINAL") == "2\n",
      "the read gave the server that was down the version it missed")
  }
}
