import Foundation
import Testing
import UptakeStore
import UptakeTestSupport

@testable import UptakeCluster

/// `OneBoxMigration` against two real shards, from states a killed run
/// leaves that the end-to-end kill cannot aim at.
@Suite("Moving a one-box database into two real shards", .serialized, .timeLimit(.minutes(3)))
struct OneBoxMigrationTests {
  @Test("a block in flight that reached one shard in part: the rest ships, each event once")
  func blockInFlightInPart() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let layout = try shards.migratedLayout()
    for index in 0..<2 { _ = try shards.query(index, "SYSTEM STOP MERGES uptake.events_local") }
    try EventShipperTests.spool(in: scratch, events: 2_500).close()
    let source = try OneBoxSource(path: scratch.databasePath)

    // A run killed during the insert of events 1-1000, in blocks of 1000:
    // every other one of them reached the first server's own table.
    let block = try EventBlock.read(
      from: source.database, after: 0, limit: 1_000, unnamedPrefix: source.sourceId)
    let odd = Set(block.keys.enumerated().filter { $0.offset % 2 == 1 }.map(\.element))
    let firstServer = ClusterLayout(
      servers: [layout.servers[0]], database: layout.database, cluster: nil)
    try block.leavingOut(odd).insert(into: firstServer)
    try MigrationProgress(shippedSeq: 0, inFlightSeq: block.lastSeq).write(
      sourceId: source.sourceId, sourcePath: scratch.databasePath, to: layout)

    // Run again in smaller blocks than the killed run's.
    let outcome = try OneBoxMigration(source: source, layout: layout, blockEvents: 300).run {
      _, _ in
    }
    #expect(outcome.eventsFoundInCluster == 500)
    #expect(outcome.eventsShipped == 2_000)
    #expect(outcome.eventsTotal == 2_500)
    #expect(outcome.appsAdded == 1)
    #expect(
      try shards.query(0, "SELECT count(), uniqExact(app_id, id) FROM uptake.events")
        == "2500\t2500\n")
    #expect(
      try MigrationProgress.read(sourceId: source.sourceId, in: layout)
        == MigrationProgress(shippedSeq: 2_500, inFlightSeq: 2_500))
    // The id-less events keep the source's names.
    #expect(
      try shards.query(
        0, "SELECT count() FROM uptake.events WHERE id LIKE '~\(source.sourceId):%'") == "250\n")
  }
}
