import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

/// The duplicate index's merged level: sorted blocks of keys. Every test
/// checks the blocks' invariants besides what it merges: each block sorted,
/// within `maxKeys`, stored under its first key, and the blocks in order
/// without overlapping.
@Suite("DedupBlocks: merged dedup keys, packed in sorted blocks")
struct DedupBlocksTests {
  /// Every stored key, block by block, after checking the invariants.
  static func storedKeys(_ database: Database) throws -> [Int64] {
    let rows = try database.statement(
      "SELECT first_key, packed FROM dedup_blocks ORDER BY first_key")
    defer { rows.reset() }
    var all: [Int64] = []
    while try rows.step() {
      var keys: [Int64] = []
      rows.withBlob(1) { Int64.forEachPacked(in: $0) { keys.append($0) } }
      #expect(!keys.isEmpty && keys.count <= DedupBlocks.maxKeys)
      #expect(keys.first == rows.int64(0), "a block is stored under its first key")
      #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }, "sorted, distinct")
      if let last = all.last, let first = keys.first { #expect(last < first, "blocks in order") }
      all += keys
    }
    var streamed: [Int64] = []
    try DedupBlocks.forEachKey(database) { streamed.append($0) }
    #expect(streamed == all)
    return all
  }

  static func keys(_ prefix: String, _ count: Int) -> [Int64] {
    (0..<count).map { StableHash.dedupKey(appNo: 1, clientId: "\(prefix)-\($0)") }
  }

  @Test("merges in slices, over and between blocks, before the first: every key found once")
  func mergesKeepEveryKey() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let blocks = try DedupBlocks(database)
    var expected = Set<Int64>()

    for (round, count) in [5_000, 1, 20_000, 300, 7_000].enumerated() {
      let keys = Self.keys("round-\(round)", count).sorted()
      // In slices as DedupIndex merges them, each slice its own range.
      for slice in 0..<4 {
        try blocks.merge(keys[keys.count * slice / 4..<keys.count * (slice + 1) / 4])
      }
      expected.formUnion(keys)
      #expect(try Self.storedKeys(database) == expected.sorted(), "after round \(round)")
    }
    // Below and above every stored key, and keys stored already.
    let edges: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max]
    let again = Array(expected.sorted().prefix(50))
    try blocks.merge(ArraySlice(Set(edges + again).sorted()))
    expected.formUnion(edges)
    #expect(try Self.storedKeys(database) == expected.sorted())

    #expect(try expected.allSatisfy { key throws in try blocks.contains(key) })
    let absent = Self.keys("absent", 5_000)
    #expect(try absent.allSatisfy { key throws in try !blocks.contains(key) })
  }

  @Test("an empty level holds nothing")
  func empty() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let blocks = try DedupBlocks(database)
    #expect(try !blocks.contains(0))
    #expect(try !blocks.contains(.min))
    try blocks.merge([])
    #expect(try Self.storedKeys(database).isEmpty)
  }

  @Test("schema/0014 packs the dedup_keys rows of a database merged before it")
  func migrationPacksRows() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    // The database as 0001–0013 left it: a row a key, inserted out of
    // order, so the migration cannot count on the order it reads them in.
    let keys = Self.keys("old", 2_000) + [.min, 0, .max]
    try database.execute(
      """
      DROP TABLE dedup_blocks;
      CREATE TABLE dedup_keys (key INTEGER PRIMARY KEY);
      DELETE FROM schema_migrations WHERE name = '0014_dedup_blocks';
      """)
    let insert = try database.statement("INSERT INTO dedup_keys (key) VALUES (?)")
    for key in keys.reversed() {
      try insert.bind(1, key)
      try insert.run()
    }

    #expect(try Migrator.migrate(database) == ["0014_dedup_blocks"])

    #expect(try Self.storedKeys(database) == keys.sorted())
    #expect(
      try database.scalarInt("SELECT count(*) FROM dedup_blocks") == Int64((keys.count + 319) / 320)
    )
    #expect(
      try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'dedup_keys'") == 0)
  }
}
