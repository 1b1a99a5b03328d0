/// A blocked Bloom filter over the (bucket, install) pairs of one day:
/// whether an install may already be a member of a bucket. It has no false
/// negatives, so a pair it rules out is certainly new; a false positive
/// costs one look at the bucket's packed members (`BucketMembership`).
///
/// Blocked: all of a key's bits lie in one 64-byte block, so a lookup
/// touches one cache line instead of one per bit; at 16 bits a member that
/// costs a false positive rate of about 1 in 1,000 instead of 1 in 2,000.
struct MemberFilter {
  static let bitsPerMember = 16
  /// Bits set per key, inside its block.
  private static let bitsPerKey = 8
  /// The smallest filter: 64 KiB, enough for 32k members.
  static let minimumBits = 1 << 19
  /// The largest: 32 MiB, for 16M members of a day at 16 bits each.
  /// Past it the filter keeps taking members at fewer bits each, and more
  /// lookups fall through to the packed members, rather than memory
  /// growing with the data.
  static let maximumBits = 1 << 28

  private var blocks: BloomBlocks
  private let blockCount: UInt64
  /// Members inserted.
  private(set) var count = 0

  /// A filter for `members` members at `bitsPerMember` bits each, kept
  /// between the minimum and maximum size.
  init(members: Int) {
    let bits = min(Self.maximumBits, max(Self.minimumBits, members * Self.bitsPerMember))
    let blocks = (bits + 511) / 512
    self.blocks = BloomBlocks(count: blocks)
    blockCount = UInt64(blocks)
  }

  /// Bits in all blocks.
  private var bits: Int { Int(blockCount) * 512 }

  /// The memory its blocks take.
  var byteCount: Int { bits / 8 }

  /// Members the filter holds at its full number of bits each.
  var capacity: Int { bits / Self.bitsPerMember }

  /// Whether a bigger filter would hold `members` at more bits each.
  func shouldGrow(toHold members: Int) -> Bool {
    members > capacity && bits < Self.maximumBits
  }

  /// The key of an install in a bucket; `bucket` is `bucketHash`'s.
  static func key(bucket: UInt64, install: Int64) -> UInt64 {
    // splitmix64's finalizer: install keys are hashes already, but the
    // bucket's hash must spread into every bit of the pair's.
    var mixed = bucket ^ UInt64(bitPattern: install)
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return mixed ^ (mixed >> 31)
  }

  /// A bucket's hash inside its day: its update id and action. Filters
  /// live in one process's memory, so a per-process seeded hash will do.
  static func bucketHash(updateId: String, action: Int) -> UInt64 {
    var hasher = Hasher()
    hasher.combine(updateId)
    hasher.combine(action)
    return UInt64(bitPattern: Int64(hasher.finalize()))
  }

  mutating func insert(_ key: UInt64) {
    count += 1
    blocks.insert(key, bits: Self.bitsPerKey, block: block(of: key))
  }

  /// False when `key` was certainly never inserted.
  func mayContain(_ key: UInt64) -> Bool {
    blocks.mayContain(key, bits: Self.bitsPerKey, block: block(of: key))
  }

  /// The key's block: its low half scaled to the number of blocks (a
  /// multiply and a shift instead of a division).
  private func block(of key: UInt64) -> Int {
    Int(((key & 0xFFFF_FFFF) &* blockCount) >> 32)
  }

}
