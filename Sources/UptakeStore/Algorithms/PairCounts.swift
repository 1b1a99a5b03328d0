/// Counts kept per key of two words, for the fold's tallies: installs per
/// app, test flag and day (`BucketMembership`), new rows per day and
/// version (`SeenWriter`). A step adds to them a few hundred thousand
/// times over a few hundred keys.
///
/// Why not a Dictionary: its SipHash of each key, set up and finished for
/// every add, cost the fold about 4 % of its time (docs/performance.md,
/// session 32). Here a key's slot is two multiplies (`SlotHash.slot`): keys
/// hold what clients send (days), so they are mixed with the process's
/// secret and crafted ones spread like any others.
struct PairCounts {
  struct Key: Equatable {
    let high: Int64
    let low: Int64
  }

  private var keys: [Key]
  /// 0 marks an empty slot: every key present has added at least 1.
  private var counts: [Int]
  private(set) var count = 0
  private let hash = SlotHash.process
  /// 64 - log2(slots): `SlotHash.slot(_:shift:)` takes the high bits.
  private var shift: Int

  init() {
    keys = [Key](repeating: Key(high: 0, low: 0), count: 64)
    counts = [Int](repeating: 0, count: 64)
    shift = 64 - 6
  }

  /// Adds `amount`, at least 1, to `key`'s count.
  mutating func add(_ key: Key, _ amount: Int = 1) {
    precondition(amount > 0, "a count only grows")
    let slot = find(key)
    if counts[slot] == 0 {
      keys[slot] = key
      count += 1
    }
    counts[slot] += amount
    if count * 2 > keys.count { grow() }
  }

  /// `key`'s count: 0 for a key never added to.
  subscript(key: Key) -> Int { counts[find(key)] }

  /// Each key and its count, in no particular order.
  func forEach<Failure: Error>(_ body: (Key, Int) throws(Failure) -> Void) throws(Failure) {
    for slot in counts.indices where counts[slot] != 0 {
      try body(keys[slot], counts[slot])
    }
  }

  /// The slot holding `key`, or the empty one where it would go.
  private func find(_ key: Key) -> Int {
    let mask = keys.count - 1
    let mixed = UInt64(bitPattern: key.high) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: key.low)
    var slot = hash.slot(Int64(bitPattern: mixed), shift: shift)
    while counts[slot] != 0 && keys[slot] != key { slot = (slot + 1) & mask }
    return slot
  }

  private mutating func grow() {
    let (oldKeys, oldCounts) = (keys, counts)
    keys = [Key](repeating: Key(high: 0, low: 0), count: oldKeys.count * 2)
    counts = [Int](repeating: 0, count: oldKeys.count * 2)
    shift -= 1
    for slot in oldCounts.indices where oldCounts[slot] != 0 {
      let target = find(oldKeys[slot])
      keys[target] = oldKeys[slot]
      counts[target] = oldCounts[slot]
    }
  }
}

extension PairCounts.Key {
  /// The key of an app's, test flag's and day's tally: the app, and the
  /// test flag above the day's 32 bits.
  init(appNo: Int64, isTest: Bool, day: Int64) {
    self.init(high: appNo, low: (isTest ? 1 << 32 : 0) | Int64(UInt32(truncatingIfNeeded: day)))
  }

  /// The parts of a key made by `init(appNo:isTest:day:)`.
  var appNo: Int64 { high }
  var isTest: Bool { low >> 32 != 0 }
  var day: Int64 { Int64(Int32(truncatingIfNeeded: low)) }
}
