import UptakeCore

/// Finds events whose client `id` is already stored, fast even though ids are
/// random UUIDs.
///
/// Why not a UNIQUE index on the id: random keys land on random leaf pages,
/// so each inserted event dirties its own page of a large B-tree and every
/// commit writes thousands of pages to the WAL, many times the cost of
/// time-ordered keys (docs/performance.md). Instead the index has two
/// levels, like a small LSM tree:
///
/// - **Recent level, in memory.** The 64-bit keys (`StableHash.dedupKey`) of
///   events stored since the last merge (`RecentKeys`). They need no index
///   of their own on disk: every event row carries its key and rows are
///   appended in `seq` order, so the level is rebuilt at start by reading
///   the events after `dedup_merged_seq`.
/// - **Merged level, on disk.** `dedup_blocks` (`DedupBlocks`): the keys
///   sorted and packed a few hundred to a row. When the recent level
///   reaches `mergeThreshold` keys it is frozen, sorted and merged in
///   `mergeChunks` key-range slices, one short transaction each, in between
///   ingest batches; each block the slice's keys fall in is read and
///   rewritten once. The last slice's transaction records the new
///   `dedup_merged_seq`; a crash mid-merge only repeats the merge (keys
///   already stored are skipped).
///
/// A lookup asks a Bloom filter of every stored key first
/// (`StoredKeyFilter`), which rules out nearly every new key; only the rest
/// are looked up in memory and then in the one block a key would be in.
///
/// Another process (the CLI's `import`) may write events too. Writers are
/// serialised by SQLite's write lock, so at the start of every write
/// transaction `synchronize` reads what others appended or merged.
///
/// Two different ids with the same 64-bit key would be taken as duplicates:
/// for a million ids of one app the chance is about 3 in 10^8.
final class DedupIndex {
  /// Keys held in memory before a merge: 8 MiB at this size, and one merge
  /// then writes each page of `dedup_blocks` about once per million events.
  /// Each merge rewrites every block its keys fall in, and random keys fall
  /// in all of them, so fewer merges write less; past this size the keys'
  /// memory outgrows what it saves (docs/performance.md).
  static let defaultMergeThreshold = 1 << 20
  /// Slices per merge, so no single transaction stalls ingest for long.
  static let mergeChunks = 16

  private static let mergedSeqName = "dedup_merged_seq"

  /// No seq: `synchronize` reloads everything from the database.
  private static let unknownSeq: Int64 = -1

  private var recent = RecentKeys()
  /// The keys being merged, sorted, with the slice to merge next.
  private var frozen: [Int64] = []
  private var nextChunk = 0
  /// Events with seq <= this have their key in `dedup_blocks`.
  private var mergedThroughSeq = unknownSeq
  /// Events with seq <= this have their key in memory or in `dedup_blocks`.
  private var seenThroughSeq = unknownSeq
  /// The seq the frozen keys run up to; recorded when the merge completes.
  private var frozenThroughSeq: Int64 = 0
  /// This connection's statements on `dedup_blocks`, prepared once.
  private var blocks: DedupBlocks?
  /// Every key in `dedup_blocks` and in memory, so that most lookups need
  /// no other.
  private var filter = StoredKeyFilter()
  /// `filter` holds the keys of all events with seq <= this (and perhaps
  /// keys of a transaction that was rolled back, which cost only a lookup).
  private var filterThroughSeq = unknownSeq

  /// Keys held in memory before a merge (`defaultMergeThreshold` unless a
  /// bulk writer can afford more memory for fewer merges).
  let mergeThreshold: Int

  init(mergeThreshold: Int = defaultMergeThreshold) {
    self.mergeThreshold = mergeThreshold
  }

  /// Catches up with what other connections committed. Call inside a write
  /// transaction, before any `contains`, with the newest stored event's
  /// seq (`Database.newestEventSeq`).
  func synchronize(_ database: Database, newestSeq newest: Int64) throws(StoreError) {
    let merged = try Self.mergedSeq(database)
    if merged != mergedThroughSeq {
      recent = RecentKeys(try Self.keys(database, after: merged, through: newest))
      frozen = []
      nextChunk = 0
      mergedThroughSeq = merged
    } else if newest > seenThroughSeq {
      for key in try Self.keys(database, after: seenThroughSeq, through: newest) {
        recent.insert(key)
      }
    }
    seenThroughSeq = newest
    try catchUpFilter(database, through: newest)
  }

  /// True when an event with this key is already stored, or was inserted
  /// earlier in the current transaction.
  func contains(_ key: Int64, _ database: Database) throws(StoreError) -> Bool {
    guard filter.mayContain(key) else { return false }
    if recent.contains(key) { return true }
    if !frozen.isEmpty, RecentKeys.sortedContains(frozen, key) { return true }
    guard mergedThroughSeq > 0 else { return false }
    return try blocks(database).contains(key)
  }

  /// Brings the filter's blocks for `keys` into the CPU's cache before
  /// they are looked up one by one (`contains`, then `didInsert`).
  func prefetch(_ keys: [Int64?]) {
    filter.prefetch(keys)
  }

  private func blocks(_ database: Database) throws(StoreError) -> DedupBlocks {
    if let blocks { return blocks }
    let prepared = try DedupBlocks(database)
    blocks = prepared
    return prepared
  }

  /// Records the key of an event inserted in the current transaction. It
  /// goes straight into the recent level and the filter: `didRollBack`
  /// undoes the first if the transaction fails, and in the filter it costs
  /// only a lookup now and then.
  func didInsert(_ key: Int64) {
    recent.insert(key)
    filter.insert(key)
  }

  /// Forgets keys of a transaction that was rolled back: the next
  /// `synchronize` rebuilds the recent level from the stored events. A
  /// failed commit is rare (a full disk), so the rebuild costs little overall.
  func didRollBack() {
    mergedThroughSeq = Self.unknownSeq
    seenThroughSeq = Self.unknownSeq
  }

  /// Records that the transaction whose last event is `lastSeq` committed.
  func didCommit(lastSeq: Int64) {
    seenThroughSeq = max(seenThroughSeq, lastSeq)
    filterThroughSeq = max(filterThroughSeq, lastSeq)
    if frozen.isEmpty && recent.count >= mergeThreshold { freezeRecent() }
  }

  /// Starts a merge of the recent level whatever its size, unless one is
  /// under way or there is nothing to merge.
  func mergeRecentNow() {
    if frozen.isEmpty && !recent.isEmpty { freezeRecent() }
  }

  private func freezeRecent() {
    frozen = recent.sorted()
    frozenThroughSeq = seenThroughSeq
    recent = RecentKeys()
    nextChunk = 0
  }

  /// True while a merge has slices left to write.
  var isMerging: Bool { !frozen.isEmpty }

  /// Writes the next slice of the merge in its own transaction.
  func mergeNextChunk(_ database: Database) throws(StoreError) {
    guard !frozen.isEmpty else { return }
    let finished = try database.write { () throws(StoreError) -> Bool in
      try synchronize(database, newestSeq: try database.newestEventSeq())
      // Another process merged meanwhile: synchronize dropped our merge.
      guard !frozen.isEmpty else { return false }
      let chunkSize = (frozen.count + Self.mergeChunks - 1) / Self.mergeChunks
      let start = nextChunk * chunkSize
      let end = min(frozen.count, start + chunkSize)
      try blocks(database).merge(frozen[start..<end])
      let isLast = end == frozen.count
      if isLast {
        let record = try database.statement(
          "INSERT OR REPLACE INTO store_state (name, value) VALUES (?, ?)")
        try record.bind(1, Self.mergedSeqName)
        try record.bind(2, frozenThroughSeq)
        try record.run()
      }
      return isLast
    }
    if finished {
      mergedThroughSeq = frozenThroughSeq
      frozen = []
      nextChunk = 0
    } else if !frozen.isEmpty {
      nextChunk += 1
    }
  }

  /// Adds to the filter the keys stored since it was last brought up to
  /// date (by another process), or at start, or when the events went back
  /// (a restored file), builds it from `dedup_blocks` and memory.
  private func catchUpFilter(_ database: Database, through newest: Int64) throws(StoreError) {
    if filterThroughSeq == Self.unknownSeq || newest < filterThroughSeq {
      filter = StoredKeyFilter()
      try DedupBlocks.forEachKey(database) { filter.insert($0) }
      recent.forEach { filter.insert($0) }
      for key in frozen { filter.insert(key) }
    } else if newest > filterThroughSeq {
      for key in try Self.keys(database, after: filterThroughSeq, through: newest) {
        filter.insert(key)
      }
    }
    filterThroughSeq = newest
  }

  private static func mergedSeq(_ database: Database) throws(StoreError) -> Int64 {
    let statement = try database.statement("SELECT value FROM store_state WHERE name = ?")
    try statement.bind(1, mergedSeqName)
    defer { statement.reset() }
    return try statement.step() ? statement.int64(0) : 0
  }

  private static func keys(_ database: Database, after: Int64, through: Int64) throws(StoreError)
    -> [Int64]
  {
    let statement = try database.statement(
      "SELECT dedup_key FROM events WHERE seq > ? AND seq <= ? AND dedup_key IS NOT NULL")
    try statement.bind(1, after)
    try statement.bind(2, through)
    var keys: [Int64] = []
    while try statement.step() { keys.append(statement.int64(0)) }
    return keys
  }
}
