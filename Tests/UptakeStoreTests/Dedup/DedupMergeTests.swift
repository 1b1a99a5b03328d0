import Foundation
import Testing
import UptakeCore
import UptakeStore
import UptakeTestSupport

/// The duplicate index keeps recent ids in memory and, past 2^20 of them,
/// merges them into `dedup_blocks` in slices. These tests cross that threshold
/// for real, so they insert a little over a million events (about 13
/// seconds in a debug build).
@Suite("Duplicate index merge: ids stay duplicates after they move to disk")
struct DedupMergeTests {
  /// One more batch than it takes to reach the merge threshold of 1 << 20.
  static let batchSize = 5_000
  static let batchCount = (1 << 20) / batchSize + 1
  static let eventCount = batchSize * batchCount

  /// Keys in the merged level, 8 bytes each in its blocks.
  static func mergedKeys(_ database: Database) throws -> Int64? {
    try database.scalarInt("SELECT coalesce(sum(length(packed) / 8), 0) FROM dedup_blocks")
  }

  @Test("during and after a merge, old ids are duplicates, for this inserter and a new one")
  func mergedIdsStayDuplicates() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let inserter = EventInserter(database: database)

    for batchNumber in 0..<Self.batchCount {
      let ids = (0..<Self.batchSize).map { "id-\(batchNumber * Self.batchSize + $0)" }
      let outcome = try inserter.insert([batch(app, events(ids: ids))])
      #expect(outcome == [InsertOutcome(accepted: Self.batchSize)])
    }
    #expect(inserter.isMergingDuplicates)
    var steps = 0
    while inserter.isMergingDuplicates && steps < 8 {
      try inserter.mergeNextDuplicateChunk()
      steps += 1
    }
    #expect(inserter.isMergingDuplicates)
    let oldIds = [0, 1, 4_999, 5_000, 262_144, Self.eventCount - 1].map { "id-\($0)" }
    #expect(
      try inserter.insert([batch(app, events(ids: oldIds + ["during-merge"]))])
        == [InsertOutcome(accepted: 1, duplicates: oldIds.count)],
      "ids are duplicates while half merged")
    while inserter.isMergingDuplicates {
      try inserter.mergeNextDuplicateChunk()
      steps += 1
    }
    #expect(steps == 16)
    #expect(try Self.mergedKeys(database) == Int64(Self.eventCount))
    // The merge covers the events stored before it began, not the one since.
    #expect(
      try database.scalarInt("SELECT value FROM store_state WHERE name = 'dedup_merged_seq'")
        == Int64(Self.eventCount))

    #expect(
      try inserter.insert([batch(app, events(ids: oldIds + ["during-merge", "new-1"]))])
        == [InsertOutcome(accepted: 1, duplicates: oldIds.count + 1)])

    let restartedConnection = try scratch.openDatabase()
    let restarted = EventInserter(database: restartedConnection)
    #expect(
      try restarted.insert([batch(app, events(ids: oldIds + ["during-merge", "new-1", "new-2"]))])
        == [InsertOutcome(accepted: 1, duplicates: oldIds.count + 2)])
    #expect(try restartedConnection.storedEventCount() == Int64(Self.eventCount + 3))

    // Another writer merges a second round; the first learns of its keys.
    for batchNumber in 0..<Self.batchCount {
      let ids = (0..<Self.batchSize).map { "second-\(batchNumber * Self.batchSize + $0)" }
      _ = try restarted.insert([batch(app, events(ids: ids))])
    }
    while restarted.isMergingDuplicates {
      try restarted.mergeNextDuplicateChunk()
    }
    let secondIds = [0, 77_777, Self.eventCount - 1].map { "second-\($0)" }
    #expect(
      try inserter.insert([batch(app, events(ids: oldIds + secondIds + ["new-3"]))])
        == [InsertOutcome(accepted: 1, duplicates: oldIds.count + secondIds.count)],
      "keys merged by another writer are duplicates here too")
  }

  @Test("a bulk writer's larger in-memory level: merged whole on request, still duplicates after")
  func bulkWriterMergesItsRecentLevel() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    // Past the default threshold, under the bulk one: no merge on its own.
    let inserter = EventInserter(database: database, dedupMergeKeys: 1 << 21)
    let count = Self.eventCount
    for start in stride(from: 0, to: count, by: Self.batchSize) {
      let ids = (start..<start + Self.batchSize).map { "id-\($0)" }
      _ = try inserter.insert([batch(app, events(ids: ids))])
    }
    #expect(!inserter.isMergingDuplicates)
    #expect(try Self.mergedKeys(database) == 0)

    try inserter.mergeDuplicateKeys()

    #expect(!inserter.isMergingDuplicates)
    #expect(try Self.mergedKeys(database) == Int64(count))
    #expect(
      try database.scalarInt("SELECT value FROM store_state WHERE name = 'dedup_merged_seq'")
        == Int64(count))
    let oldIds = ["id-0", "id-\(count / 2)", "id-\(count - 1)"]
    #expect(
      try inserter.insert([batch(app, events(ids: oldIds + ["new"]))])
        == [InsertOutcome(accepted: 1, duplicates: 3)])
    let next = EventInserter(database: try scratch.openDatabase())
    #expect(
      try next.insert([batch(app, events(ids: oldIds + ["new", "newer"]))])
        == [InsertOutcome(accepted: 1, duplicates: 4)])
  }
}
