/// The duplicate index's merged level on disk (schema/0014): every merged
/// dedup key, sorted and packed, up to `maxKeys` to a row of
/// `dedup_blocks`, each row under its smallest key.
///
/// Why blocks and not a row a key: a merge adds half a million random
/// keys. As rows, each was an INSERT of its own, a seek from the root and a
/// cell insert, the writer's largest cost after the events' own inserts
/// (docs/performance.md). As blocks, a merge reads and rewrites
/// each block its keys fall in once, a few thousand statements instead of
/// half a million, and writes the same pages as before (random keys touch
/// nearly every leaf page either way).
struct DedupBlocks {
  /// 3.5 KiB of keys: a block stays within one page of the table (SQLite
  /// moves a row past about 4,060 bytes partly to overflow pages).
  static let maxKeys = 448
  /// A block that outgrows `maxKeys` is split into blocks of about this
  /// many, which leaves room for the next merges' keys.
  static let splitKeys = 320

  /// The block a key belongs in (the last one starting at or before it,
  /// else the first), and the next block, whose first key bounds it.
  private let holding: Statement
  private let lookup: Statement
  private let store: Statement
  private let remove: Statement

  init(_ database: Database) throws(StoreError) {
    holding = try database.statement(
      """
      SELECT first_key, packed FROM dedup_blocks
      WHERE first_key >= coalesce(
        (SELECT first_key FROM dedup_blocks WHERE first_key <= ?1
         ORDER BY first_key DESC LIMIT 1), -9223372036854775808)
      ORDER BY first_key LIMIT 2
      """)
    lookup = try database.statement(
      "SELECT packed FROM dedup_blocks WHERE first_key <= ? ORDER BY first_key DESC LIMIT 1")
    store = try database.statement(
      "INSERT OR REPLACE INTO dedup_blocks (first_key, packed) VALUES (?, ?)")
    remove = try database.statement("DELETE FROM dedup_blocks WHERE first_key = ?")
  }

  /// True when `key` is stored.
  func contains(_ key: Int64) throws(StoreError) -> Bool {
    try lookup.bind(1, key)
    defer { lookup.reset() }
    guard try lookup.step() else { return false }
    return lookup.withBlob(0) { Self.sortedContains($0, key) }
  }

  /// Adds `keys`, sorted and distinct; those already stored are skipped, so
  /// a merge repeated after a crash adds nothing twice.
  func merge(_ keys: ArraySlice<Int64>) throws(StoreError) {
    var index = keys.startIndex
    while index < keys.endIndex {
      try holding.bind(1, keys[index])
      var first: Int64?
      var stored: [Int64] = []
      var bound: Int64?
      if try holding.step() {
        first = holding.int64(0)
        stored = holding.withBlob(1) { Self.unpack($0) }
        if try holding.step() { bound = holding.int64(0) }
      }
      holding.reset()
      var end = index
      while end < keys.endIndex, bound.map({ keys[end] < $0 }) ?? true { end += 1 }
      let merged = Self.union(stored, keys[index..<end])
      index = end
      guard merged.count > stored.count else { continue }
      // Only keys before the first block can move a block's first key.
      if let first, merged[0] != first {
        try remove.bind(1, first)
        try remove.run()
      }
      let pieces =
        merged.count <= Self.maxKeys ? 1 : (merged.count + Self.splitKeys - 1) / Self.splitKeys
      for piece in 0..<pieces {
        let slice = merged[merged.count * piece / pieces..<merged.count * (piece + 1) / pieces]
        try store.bind(1, slice[slice.startIndex])
        try store.bind(2, slice.packed(reservingPerEntry: 8))
        try store.run()
      }
    }
  }

  /// Calls `body` with every stored key, in ascending order.
  static func forEachKey(_ database: Database, _ body: (Int64) -> Void) throws(StoreError) {
    let all = try database.statement("SELECT packed FROM dedup_blocks ORDER BY first_key")
    defer { all.reset() }
    while try all.step() {
      all.withBlob(0) { Int64.forEachPacked(in: $0, body) }
    }
  }

  private static func unpack(_ blob: UnsafeRawBufferPointer) -> [Int64] {
    var keys: [Int64] = []
    keys.reserveCapacity(blob.count / 8)
    Int64.forEachPacked(in: blob) { keys.append($0) }
    return keys
  }

  /// The sorted union of two sorted, distinct lists.
  private static func union(_ stored: [Int64], _ added: ArraySlice<Int64>) -> [Int64] {
    var merged: [Int64] = []
    merged.reserveCapacity(stored.count + added.count)
    var (left, right) = (stored.startIndex, added.startIndex)
    while left < stored.endIndex && right < added.endIndex {
      let (old, new) = (stored[left], added[right])
      merged.append(min(old, new))
      if old <= new { left += 1 }
      if new <= old { right += 1 }
    }
    merged += stored[left...]
    merged += added[right...]
    return merged
  }

  private static func sortedContains(_ blob: UnsafeRawBufferPointer, _ sought: Int64) -> Bool {
    var low = 0
    var high = blob.count / 8
    func key(at index: Int) -> Int64 {
      Int64(littleEndian: blob.loadUnaligned(fromByteOffset: index * 8, as: Int64.self))
    }
    while low < high {
      let middle = (low + high) / 2
      if key(at: middle) < sought { low = middle + 1 } else { high = middle }
    }
    return low < blob.count / 8 && key(at: low) == sought
  }
}
