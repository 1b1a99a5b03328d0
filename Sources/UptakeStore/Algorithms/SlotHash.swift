/// Where the in-memory tables put a key (`InstallMap`, `TextNumbering`,
/// `DimensionNumbering`) and which bits a filter sets for it
/// (`StoredKeyFilter`): the key mixed with a secret drawn once per process.
///
/// The keys are stable, unkeyed hashes of what clients send (install keys
/// and dedup keys, `StableHash`, which stay as they are on disk), so anyone
/// holding an app's public ingest key can compute them. Tables that took
/// slots from their bits directly could be flooded with ids whose keys
/// share those bits: 131,072 crafted `installId`s made one report a hundred
/// times slower, and crafted update ids a fold step 18 times slower
/// (issue 25). Mixed with a secret the client never sees, crafted keys
/// spread like random ones.
struct SlotHash: Sendable {
  private let first: UInt64
  private let second: UInt64

  /// The process's secret: every table of the process shares it.
  static let process: SlotHash = {
    var random = SystemRandomNumberGenerator()
    return SlotHash(first: random.next(), second: random.next())
  }()

  /// Fixed secrets, for tests that need to know where keys land.
  init(first: UInt64, second: UInt64) {
    self.first = first
    self.second = second
  }

  /// `key` mixed with the secret: two rounds of splitmix64's finaliser, a
  /// part of the secret added before each, so the output's low bits depend
  /// on every bit of the key and of the secret.
  func mix(_ key: UInt64) -> UInt64 {
    Self.finalized(Self.finalized(key ^ first) &+ second)
  }

  /// `key`'s slot in a table of 2^(64 - `shift`) slots: the high bits of
  /// the key times an odd secret (multiply-shift, a universal family: two
  /// keys share a slot with a chance of about 2 in the slots, whatever
  /// keys a client picks). One multiply, where `mix`'s four made a
  /// funnel's install lookups a sixth slower.
  func slot(_ key: Int64, shift: Int) -> Int {
    Int(truncatingIfNeeded: ((UInt64(bitPattern: key) ^ first) &* (second | 1)) >> UInt64(shift))
  }

  /// A text's slot: its bytes taken 8 at a time, the last word padded
  /// with zeros, each word mixed into a running hash that starts from the
  /// length. A version or an update id is one or two words: one or two
  /// `mix`es, as cheap as the FNV-1a it replaces; Swift's seeded `Hasher`
  /// would do as well, but setting one up for each lookup of a short text
  /// was a sixth of a funnel's time.
  func slot(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    var hash = UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15
    guard let base = bytes.baseAddress, !bytes.isEmpty else {
      return Int(truncatingIfNeeded: mix(hash))
    }
    let raw = UnsafeRawPointer(base)
    var offset = 0
    while offset + 8 <= bytes.count {
      hash = mix(hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      offset += 8
    }
    if offset < bytes.count {
      var tail: UInt64 = 0
      for index in 0..<(bytes.count - offset) {
        tail |= UInt64(raw.load(fromByteOffset: offset + index, as: UInt8.self)) << (8 * index)
      }
      hash = mix(hash ^ tail)
    }
    return Int(truncatingIfNeeded: hash)
  }

  /// splitmix64's finaliser: a bijection that spreads every input bit over
  /// all output bits.
  private static func finalized(_ value: UInt64) -> UInt64 {
    var hash = value
    hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
    hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
    return hash ^ (hash >> 31)
  }
}
