import Glibc

/// The bits of a blocked Bloom filter (`StoredKeyFilter`, `MemberFilter`),
/// zeroed, in memory of their own: a filter of 2 MiB or more is aligned to
/// 2 MiB and advised for the kernel's transparent huge pages.
///
/// Why: every ingested event looks up the 8 MiB filter of stored keys at a
/// random place, and the fold sets and tests bits all over a day's member
/// filter (up to 32 MiB). On 4 KiB pages such a filter spans thousands of
/// pages, so nearly every lookup missed the TLB as well as the cache; on
/// 2 MiB pages it spans a handful. 100-event batches: the batch writer's CPU
/// an event 2–5 % lower (docs/profile-ingest.md, session 13). Where the
/// kernel has no huge page to give, or THP is off, the advice does nothing.
///
/// A class, so filters can copy on write (`isKnownUniquelyReferenced`)
/// as they did holding an array.
final class BloomWords {
  /// The size from which a filter asks for huge pages: one of them.
  private static let hugePageBytes = 2 << 20

  private let words: UnsafeMutablePointer<UInt64>
  let count: Int

  init(count: Int) {
    let bytes = max(1, count) * MemoryLayout<UInt64>.stride
    let huge = bytes >= Self.hugePageBytes
    var memory: UnsafeMutableRawPointer?
    let code = posix_memalign(&memory, huge ? Self.hugePageBytes : 64, bytes)
    guard code == 0, let memory else {
      fatalError("out of memory for a Bloom filter of \(bytes) bytes")
    }
    if huge { _ = madvise(memory, bytes, MADV_HUGEPAGE) }
    memset(memory, 0, bytes)
    words = memory.bindMemory(to: UInt64.self, capacity: max(1, count))
    self.count = count
  }

  deinit {
    free(words)
  }

  func copy() -> BloomWords {
    let copy = BloomWords(count: count)
    copy.words.update(from: words, count: count)
    return copy
  }

  /// The word at `index`: for reading a block ahead of its lookups.
  func word(at index: Int) -> UInt64 {
    words[index]
  }

  /// Sets `key`'s `bits` bits in the block starting at word `base`.
  func insert(_ key: UInt64, bits: Int, block base: Int) {
    BloomBlock.forEachBit(of: key, count: bits) { word, bit in
      words[base + word] |= bit
    }
  }

  /// Whether all of `key`'s `bits` bits in the block at `base` are set.
  func mayContain(_ key: UInt64, bits: Int, block base: Int) -> Bool {
    var found = true
    BloomBlock.forEachBit(of: key, count: bits) { word, bit in
      found = found && words[base + word] & bit != 0
    }
    return found
  }
}
