/// One 64-byte block of a blocked Bloom filter (`MemberFilter`,
/// `StoredKeyFilter`): all of a key's bits lie in one block, so a lookup
/// misses the CPU cache once however many bits a key sets.
enum BloomBlock {
  static let words = 8

  /// The key's `count` bits inside its block (512 bits), by double hashing
  /// of its high half (the filter chooses the block from the low half):
  /// `body` gets the word within the block and the bit within the word.
  static func forEachBit(of key: UInt64, count: Int, _ body: (Int, UInt64) -> Void) {
    let high = key >> 32
    let step = (high >> 16) | 1
    var position = high & 0xFFFF
    for _ in 0..<count {
      let bit = position & 511
      body(Int(bit >> 6), 1 << (bit & 63))
      position &+= step
    }
  }
}
