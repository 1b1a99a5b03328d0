/// A Bloom filter over every key of the duplicate index: the merged level
/// (`dedup_blocks`) and the keys in memory (`RecentKeys`, the keys being
/// merged). A new event's key is almost never there, and ruling that out
/// by a B-tree probe for every event cost a large share of uptaked's CPU
/// under batches once a merge had run (docs/performance.md); the filter
/// rules it out in memory. It has no false negatives, so a key it rules
/// out is certainly not stored; a false positive only costs the lookups it
/// replaces.
///
/// It covers the recent keys too so that a new key costs one lookup here
/// and nothing else: the recent level was a hash set probed for every
/// event before the filter (`RecentKeys`).
///
/// Its size is fixed: 8 MiB, allocated when the first key goes in. With four
/// bits a key about 1 key in 1,000 is a false positive at 3M stored keys and
/// 1 in 20 at 10M; past that the filter fills up and lookups fall back to
/// probing, as they did without it, rather than memory growing with the data.
///
/// Blocked (`BloomBlocks`): a key's four bits lie in one 64-byte block,
/// so a lookup of a new key, made for every event ingested, misses the CPU
/// cache once instead of four times.
struct StoredKeyFilter {
  private static let blockCount = 1 << 17
  private static let bitsPerKey = 4

  private var blocks: BloomBlocks?
  private let hash = SlotHash.process

  /// Adds a key. Keys are `StableHash.dedupKey`s, evenly spread over 64
  /// bits but of ids the client chooses: the block and bit positions come
  /// from the key mixed with the process's secret (`SlotHash`), or crafted
  /// ids could fill one block and make every lookup of theirs a probe.
  mutating func insert(_ key: Int64) {
    if blocks == nil { blocks = BloomBlocks(count: Self.blockCount) }
    let mixed = hash.mix(UInt64(bitPattern: key))
    blocks?.insert(mixed, bits: Self.bitsPerKey, block: Self.block(of: mixed))
  }

  /// Reads the block of each of `keys`, nothing else, so the CPU waits for
  /// many of them at once: looked up one by one between inserts, each was
  /// a miss of its own, waited for alone (docs/performance.md).
  mutating func prefetch(_ keys: [Int64?]) {
    guard let blocks else { return }
    var touched: UInt64 = 0
    for case let key? in keys {
      touched ^= blocks.firstWord(of: Self.block(of: hash.mix(UInt64(bitPattern: key))))
    }
    // Kept, so the loads are not optimised away.
    prefetched = touched
  }

  /// The blocks `prefetch` read, folded together; read by nothing else.
  private var prefetched: UInt64 = 0

  /// False when `key` was certainly never inserted.
  func mayContain(_ key: Int64) -> Bool {
    let mixed = hash.mix(UInt64(bitPattern: key))
    return blocks?.mayContain(mixed, bits: Self.bitsPerKey, block: Self.block(of: mixed)) ?? false
  }

  /// The mixed key's block, from its low bits.
  private static func block(of mixed: UInt64) -> Int {
    Int(truncatingIfNeeded: mixed) & (blockCount - 1)
  }
}
