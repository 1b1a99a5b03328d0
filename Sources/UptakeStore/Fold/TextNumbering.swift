import UptakeCore

/// Numbers the distinct texts a fold meets (update ids, versions) in the
/// order first seen, so each of a million rows carries a 4-byte number
/// instead of a String. There are a few hundred distinct texts at most;
/// looking one up hashes its bytes and compares them with the stored
/// text, without allocating.
struct TextNumbering {
  private(set) var texts: [String] = []
  /// `Version(texts[n])`, parsed the first time number n is compared.
  private var versions: [Version?] = []
  /// Every text's UTF-8 bytes, one after another: `ends[n - 1]..<ends[n]`
  /// are number n's. One array, not an array each, spares a lookup the
  /// retain and release of the text's array.
  private var storage: [UInt8] = []
  private var ends: [Int] = []
  /// Open addressing: slot → number + 1, 0 when empty. Kept under half
  /// full.
  private var slots = [Int32](repeating: 0, count: 64)
  /// Keyed per process: the texts are the clients' (`SlotHash`).
  private let hash = SlotHash.process
  /// Texts of at most 16 bytes (versions, most update ids) looked up
  /// lately, direct-mapped by their bytes: a hit skips the keyed hash,
  /// which a funnel paid for every impression. A cache and not a table, so
  /// crafted texts can only make it miss. 4,096 entries (128 KiB, of
  /// which a lookup touches one): with 256, the 61 versions of the bench's
  /// last 30 days shared entries in pairs that evicted each other, and a
  /// funnel spent a twelfth of its time hashing the misses.
  private var recent = [RecentText](repeating: RecentText(), count: 1 << recentBits)
  private static let recentBits = 12

  private struct RecentText {
    var low: UInt64 = 0
    var high: UInt64 = 0
    var length = -1
    var number: Int32 = 0
  }

  /// The number of `text`, given as UTF-8 bytes; new texts get the next one.
  mutating func number(_ text: UnsafeBufferPointer<UInt8>) -> Int32 {
    guard text.count <= 16, let base = text.baseAddress else { return numberByHash(text) }
    let (low, high) = Self.shortKey(UnsafeRawPointer(base), count: text.count)
    let mixed =
      (low ^ (high &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(text.count)) &* 0xBF58_476D_1CE4_E5B9
    let index = Int(truncatingIfNeeded: mixed >> UInt64(64 - Self.recentBits))
    let cached = recent[index]
    if cached.length == text.count && cached.low == low && cached.high == high {
      return cached.number
    }
    let number = numberByHash(text)
    recent[index] = RecentText(low: low, high: high, length: text.count, number: number)
    return number
  }

  /// A text of at most 16 bytes as two words, little-endian, zero past its
  /// end: bytes 0..<8 in `low`, the rest in `high`. Read with loads that
  /// overlap inside the text rather than byte by byte: the compiler made
  /// the byte loop a call to memcpy, and the words read back from its
  /// byte-wise stores stalled each lookup (a sixth of a funnel's time).
  @inline(__always)
  private static func shortKey(_ base: UnsafeRawPointer, count: Int) -> (UInt64, UInt64) {
    func word(_ offset: Int) -> UInt64 {
      UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
    func half(_ offset: Int) -> UInt64 {
      UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }
    switch count {
    case 8...:
      // Bytes count-8..<count, shifted down to leave bytes 8..<count.
      let tail = count == 8 ? 0 : word(count - 8) >> UInt64(8 * (16 - count))
      return (word(0), tail)
    case 4...:
      // Two 4-byte loads that overlap in 8 - count bytes: the same bytes,
      // at the same places, so OR-ing them keeps them.
      return (half(0) | half(count - 4) << UInt64(8 * (count - 4)), 0)
    default:
      var low: UInt64 = 0
      for index in 0..<count {
        low |= UInt64(base.load(fromByteOffset: index, as: UInt8.self)) << UInt64(8 * index)
      }
      return (low, 0)
    }
  }

  private mutating func numberByHash(_ text: UnsafeBufferPointer<UInt8>) -> Int32 {
    let mask = slots.count - 1
    var slot = hash.slot(text) & mask
    while slots[slot] != 0 {
      let number = Int(slots[slot] - 1)
      if equal(number, text) { return Int32(number) }
      slot = (slot + 1) & mask
    }
    let number = Int32(texts.count)
    storage.append(contentsOf: text)
    ends.append(storage.count)
    texts.append(String(decoding: text, as: UTF8.self))
    slots[slot] = number + 1
    if texts.count * 2 > slots.count { grow() }
    return number
  }

  /// The number of a text held as a String.
  mutating func number(_ text: String) -> Int32 {
    var text = text
    return text.withUTF8 { number($0) }
  }

  /// The text of `number` read as a version (nil when it is not one),
  /// parsed once however many rows carry it.
  mutating func version(_ number: Int32) -> Version? {
    while versions.count <= Int(number) { versions.append(Version(texts[versions.count])) }
    return versions[Int(number)]
  }

  /// For each number, its place in version order, equal versions sharing
  /// one (`2.0` and `2.0.0`), or -1 for a text that is no version: so a
  /// fold compares the versions of a million points as integers.
  mutating func versionRanks() -> [Int32] {
    let parsed = texts.indices.map { version(Int32($0)) }
    let order = parsed.indices.filter { parsed[$0] != nil }.sorted { parsed[$0]! < parsed[$1]! }
    var ranks = [Int32](repeating: -1, count: parsed.count)
    var rank: Int32 = -1
    for (position, number) in order.enumerated() {
      if position == 0 || parsed[order[position - 1]]! < parsed[number]! { rank += 1 }
      ranks[number] = rank
    }
    return ranks
  }

  /// For each number, its position when the texts are sorted by their
  /// bytes: SQLite's BINARY order, the order of the tables' keys.
  func byteOrderRanks() -> [Int32] {
    let order = ends.indices.sorted {
      storage[bytesRange($0)].lexicographicallyPrecedes(storage[bytesRange($1)])
    }
    var ranks = [Int32](repeating: 0, count: ends.count)
    for (rank, number) in order.enumerated() { ranks[number] = Int32(rank) }
    return ranks
  }

  /// The farthest any text lies from the slot it hashes to: how long a
  /// lookup can take (a test's measure of flooding).
  var longestProbe: Int {
    let mask = slots.count - 1
    var longest = 0
    for slot in slots.indices where slots[slot] != 0 {
      let number = Int(slots[slot] - 1)
      let home = storage.withUnsafeBufferPointer {
        hash.slot(UnsafeBufferPointer(rebasing: $0[bytesRange(number)]))
      }
      longest = max(longest, (slot - home) & mask)
    }
    return longest
  }

  private mutating func grow() {
    slots = [Int32](repeating: 0, count: slots.count * 2)
    let mask = slots.count - 1
    for number in ends.indices {
      var slot =
        storage.withUnsafeBufferPointer {
          hash.slot(UnsafeBufferPointer(rebasing: $0[bytesRange(number)]))
        }
        & mask
      while slots[slot] != 0 { slot = (slot + 1) & mask }
      slots[slot] = Int32(number + 1)
    }
  }

  /// Where number n's bytes lie in `storage`.
  private func bytesRange(_ number: Int) -> Range<Int> {
    (number == 0 ? 0 : ends[number - 1])..<ends[number]
  }

  /// Whether number n's bytes are `text`'s. A plain loop: the generic
  /// `elementsEqual` over an array and a buffer cost a funnel as much as
  /// the hashing.
  private func equal(_ number: Int, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
    let range = bytesRange(number)
    guard range.count == text.count else { return false }
    return storage.withUnsafeBufferPointer { storage in
      var offset = range.lowerBound
      for byte in text {
        if storage[offset] != byte { return false }
        offset += 1
      }
      return true
    }
  }
}
