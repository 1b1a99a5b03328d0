import Glibc

/// The bits of a blocked Bloom filter (`StoredKeyFilter`, `MemberFilter`):
/// 64-byte blocks, each key's bits in one of them, so a lookup misses the
/// CPU cache once however many bits a key sets. The filters choose the
/// block and the number of bits; this type walks the bits and owns the
/// memory, copying it on write as an array would.
///
/// The memory is its own, zeroed: a filter of 2 MiB or more is aligned to
/// 2 MiB and advised for the kernel's transparent huge pages. Why: every
/// ingested event looks up the 8 MiB filter of stored keys at a random
/// place, and the fold sets and tests bits all over a day's member filter
/// (up to 32 MiB). On 4 KiB pages such a filter spans thousands of pages,
/// so nearly every lookup missed the TLB as well as the cache; on 2 MiB
/// pages it spans a handful (docs/performance.md). Where the kernel has no
/// huge page to give, or THP is off, the advice does nothing.
struct BloomBlocks {
  private static let wordsPerBlock = 8
  /// The size from which a filter asks for huge pages: one of them.
  private static let hugePageBytes = 2 << 20

  private var storage: Storage

  /// `count` blocks of 512 bits, all clear.
  init(count: Int) {
    storage = Storage(words: count * Self.wordsPerBlock)
  }

  /// Sets `key`'s `bits` bits in block `block`.
  mutating func insert(_ key: UInt64, bits: Int, block: Int) {
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    let words = storage.pointer + block * Self.wordsPerBlock
    Self.forEachBit(of: key, count: bits) { word, bit in words[word] |= bit }
  }

  /// Whether all of `key`'s `bits` bits in block `block` are set.
  func mayContain(_ key: UInt64, bits: Int, block: Int) -> Bool {
    let words = storage.pointer + block * Self.wordsPerBlock
    var found = true
    Self.forEachBit(of: key, count: bits) { word, bit in
      found = found && words[word] & bit != 0
    }
    return found
  }

  /// The first word of block `block`: read to bring the block into the
  /// cache ahead of its lookups.
  func firstWord(of block: Int) -> UInt64 {
    storage.pointer[block * Self.wordsPerBlock]
  }

  /// The key's `count` bits inside its block (512 bits), by double hashing
  /// of its high half (the filters choose the block from the low half):
  /// `body` gets the word within the block and the bit within the word.
  private static func forEachBit(of key: UInt64, count: Int, _ body: (Int, UInt64) -> Void) {
    let high = key >> 32
    let step = (high >> 16) | 1
    var position = high & 0xFFFF
    for _ in 0..<count {
      let bit = position & 511
      body(Int(bit >> 6), 1 << (bit & 63))
      position &+= step
    }
  }

  private final class Storage {
    let pointer: UnsafeMutablePointer<UInt64>
    let words: Int

    init(words: Int) {
      let bytes = max(1, words) * MemoryLayout<UInt64>.stride
      let huge = bytes >= BloomBlocks.hugePageBytes
      var memory: UnsafeMutableRawPointer?
      let code = posix_memalign(&memory, huge ? BloomBlocks.hugePageBytes : 64, bytes)
      guard code == 0, let memory else {
        fatalError("out of memory for a Bloom filter of \(bytes) bytes")
      }
      if huge { _ = madvise(memory, bytes, MADV_HUGEPAGE) }
      memset(memory, 0, bytes)
      pointer = memory.bindMemory(to: UInt64.self, capacity: max(1, words))
      self.words = words
    }

    deinit {
      free(pointer)
    }

    func copy() -> Storage {
      let copy = Storage(words: words)
      copy.pointer.update(from: pointer, count: words)
      return copy
    }
  }
}
