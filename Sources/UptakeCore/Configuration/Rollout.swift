/// Which installs a prompt with a rollout percentage reaches. Each install
/// falls in a bucket from a stable hash of the update and the install, the
/// same on every check, in every process and every version of Uptake; the
/// prompt reaches the buckets below the percentage. So raising the
/// percentage only adds installs, and a new update draws a fresh sample
/// rather than always starting with the same installs.
public enum Rollout {
  /// Buckets per 100%: percentages count to four decimals (0.0001%).
  static let bucketCount: UInt64 = 1_000_000

  /// The install's bucket for the update, in `0..<bucketCount`. Part of the
  /// observable behaviour: changing it would move installs in and out of
  /// every rollout in progress.
  public static func bucket(installId: String, updateId: String) -> UInt64 {
    // The zero byte cannot occur in an update id, so ("ab", "c") and
    // ("a", "bc") hash differently.
    var hash = StableHash.fnv1a64(updateId.utf8)
    hash = StableHash.fnv1a64(CollectionOfOne(0), seed: hash)
    hash = StableHash.fnv1a64(installId.utf8, seed: hash)
    return StableHash.mixed(hash) % bucketCount
  }

  /// True when the prompt at `percent` (0 to 100) reaches the install. An
  /// install without an id is reached only at 100%: without an id there is
  /// no stable sample to be part of, and a partial rollout is meant to be
  /// cautious.
  public static func includes(installId: String?, updateId: String, percent: Double) -> Bool {
    if percent >= 100 { return true }
    guard let installId, percent > 0 else { return false }
    let threshold = UInt64((percent * Double(bucketCount) / 100).rounded())
    return bucket(installId: installId, updateId: updateId) < threshold
  }
}
