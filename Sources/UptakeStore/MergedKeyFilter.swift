/// A Bloom filter over the keys of the duplicate index's merged level
/// (`dedup_keys`). A new event's key is almost never there, and ruling that
/// out by a B-tree probe for every event took 19 % of uptaked's CPU on
/// 100-event batches once a merge had run; the filter rules it out in
/// memory. It has no false negatives, so a key it rules out is certainly
/// not merged; a false positive only costs the probe it replaces.
///
/// Its size is fixed: 8 MiB, allocated when the first key goes in. With four
/// bits a key about 1 key in 1,000 is a false positive at 3M merged keys and
/// 1 in 25 at 10M; past that the filter fills up and lookups fall back to
/// probing, as they did without it, rather than memory growing with the data.
struct MergedKeyFilter {
  private static let wordCount = 1 << 20
  private static let bitMask = UInt64(wordCount * 64 - 1)
  private static let bitsPerKey = 4

  private var words: [UInt64] = []

  /// Adds a key. Keys are `StableHash.dedupKey`s, already evenly spread
  /// over 64 bits, so the bit positions come straight from them.
  mutating func insert(_ key: Int64) {
    if words.isEmpty { words = Array(repeating: 0, count: Self.wordCount) }
    Self.forEachBit(of: key) { word, bit in words[word] |= bit }
  }

  /// False when `key` was certainly never inserted.
  func mayContain(_ key: Int64) -> Bool {
    guard !words.isEmpty else { return false }
    var found = true
    Self.forEachBit(of: key) { word, bit in found = found && words[word] & bit != 0 }
    return found
  }

  /// The key's bit positions by double hashing of its two 32-bit halves.
  private static func forEachBit(of key: Int64, _ body: (Int, UInt64) -> Void) {
    let hash = UInt64(bitPattern: key)
    let step = (hash >> 32) | 1
    var position = hash & 0xFFFF_FFFF
    for _ in 0..<bitsPerKey {
      let bit = position & bitMask
      body(Int(bit >> 6), 1 << (bit & 63))
      position &+= step
    }
  }
}
