import Foundation
import Synchronization

/// A token bucket per client: each request takes a token, tokens come back
/// at `rate.perSecond` up to `rate.burst`. The buckets live in memory only;
/// a restart forgets them, which errs on the side of serving.
public final class RateLimiter: Sendable {
  /// Requests per second and the burst a quiet client may spend at once.
  public struct Rate: Sendable, Equatable {
    public var perSecond: Double
    public var burst: Double

    public init(perSecond: Double, burst: Double) {
      self.perSecond = perSecond
      self.burst = max(1, burst)
    }

    /// Parses `RATE` or `RATE:BURST` (requests per second, burst in
    /// requests); the burst defaults to twice the rate, so a client that
    /// was quiet for two seconds may send two seconds' worth at once.
    public init?(_ text: String) {
      let parts = text.split(separator: ":", omittingEmptySubsequences: false)
      guard (1...2).contains(parts.count), let perSecond = Double(parts[0]), perSecond > 0,
        perSecond.isFinite
      else { return nil }
      var burst = max(1, (2 * perSecond).rounded(.up))
      if parts.count == 2 {
        guard let given = Double(parts[1]), given >= 1, given.isFinite else { return nil }
        burst = given
      }
      self.init(perSecond: perSecond, burst: burst)
    }
  }

  /// Clients tracked at most. A bucket that has refilled is the same as no
  /// bucket, so those are dropped first; past this many busy clients at once
  /// (a spray of addresses) new ones are let through untracked rather than
  /// refused, since the queue bound and connection limits still hold.
  static let maxTrackedClients = 100_000

  private struct Bucket {
    var tokens: Double
    var updatedNs: UInt64
  }

  public let rate: Rate
  private let buckets = Mutex<[String: Bucket]>([:])

  public init(rate: Rate) {
    self.rate = rate
  }

  /// Takes a token for `client`. Returns nil when the request may go on,
  /// else the whole seconds until a token is back (for `Retry-After`).
  public func take(_ client: String, nowNs: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Int? {
    buckets.withLock { buckets in
      var bucket: Bucket
      if let existing = buckets[client] {
        bucket = existing
        let elapsed = Double(nowNs &- bucket.updatedNs) / 1e9
        bucket.tokens = min(rate.burst, bucket.tokens + elapsed * rate.perSecond)
      } else {
        if buckets.count >= Self.maxTrackedClients {
          dropRefilled(&buckets, nowNs: nowNs)
          if buckets.count >= Self.maxTrackedClients { return nil }
        }
        bucket = Bucket(tokens: rate.burst, updatedNs: nowNs)
      }
      bucket.updatedNs = nowNs
      guard bucket.tokens >= 1 else {
        buckets[client] = bucket
        return max(1, Int(((1 - bucket.tokens) / rate.perSecond).rounded(.up)))
      }
      bucket.tokens -= 1
      buckets[client] = bucket
      return nil
    }
  }

  private func dropRefilled(_ buckets: inout [String: Bucket], nowNs: UInt64) {
    buckets = buckets.filter { _, bucket in
      bucket.tokens + Double(nowNs &- bucket.updatedNs) / 1e9 * rate.perSecond < rate.burst
    }
  }
}
