/// Hashes whose values are part of the on-disk format: they must never
/// change between versions, platforms or processes (unlike Swift's `Hasher`,
/// which is seeded per process).
public enum StableHash {
  /// 64-bit FNV-1a of `bytes`, starting from `seed` (the standard offset
  /// basis by default).
  public static func fnv1a64(_ bytes: some Sequence<UInt8>, seed: UInt64 = 0xcbf2_9ce4_8422_2325)
    -> UInt64
  {
    var hash = seed
    for byte in bytes {
      hash ^= UInt64(byte)
      hash &*= 0x0000_0100_0000_01B3
    }
    return hash
  }

  /// The key under which an event's client-chosen `id` is deduplicated
  /// within an app. It is stored on disk, so this function must never change:
  /// FNV-1a over the app number as 8 little-endian bytes and then the id's
  /// UTF-8 bytes, mixed by the splitmix64 finaliser because FNV-1a alone
  /// spreads short, similar ids poorly across the high bits.
  public static func dedupKey(appNo: Int64, clientId: String) -> Int64 {
    dedupKey(appNo: appNo, utf8: clientId.utf8)
  }

  /// `dedupKey` of an id given as UTF-8 bytes (such as SQLite's text).
  public static func dedupKey(appNo: Int64, utf8 bytes: some Sequence<UInt8>) -> Int64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    var number = UInt64(bitPattern: appNo)
    for _ in 0..<8 {
      hash = fnv1a64(CollectionOfOne(UInt8(truncatingIfNeeded: number)), seed: hash)
      number >>= 8
    }
    return Int64(bitPattern: mixed(fnv1a64(bytes, seed: hash)))
  }

  /// The splitmix64 finaliser: spreads every input bit over all output bits.
  static func mixed(_ value: UInt64) -> UInt64 {
    var hash = value
    hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
    hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
    return hash ^ (hash >> 31)
  }
}

extension StableHash {
  /// The number that stands for an install in the report aggregates: the
  /// same stable hash as `dedupKey`, of the app and the `installId`. Two
  /// installs of one app share a key with a chance of about 3 in 10^8 at a
  /// million installs; that is the only way a distinct count can be off.
  public static func installKey(appNo: Int64, installId: String) -> Int64 {
    dedupKey(appNo: appNo, clientId: installId)
  }

  /// `installKey` of an id given as UTF-8 bytes.
  public static func installKey(appNo: Int64, utf8 bytes: some Sequence<UInt8>) -> Int64 {
    dedupKey(appNo: appNo, utf8: bytes)
  }
}
