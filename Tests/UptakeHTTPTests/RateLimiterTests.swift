import Testing

@testable import UptakeHTTP

@Suite("RateLimiter token buckets")
struct RateLimiterTests {
  static let second: UInt64 = 1_000_000_000

  @Test("a client spends its burst, then gets a token back every 1/rate seconds")
  func burstThenRate() {
    let limiter = RateLimiter(rate: RateLimiter.Rate(perSecond: 2, burst: 3))
    let start: UInt64 = 10 * Self.second

    let burst = (0..<4).map { _ in limiter.take("a", nowNs: start) }
    let halfSecondLater = limiter.take("a", nowNs: start + Self.second / 2)
    let rightAfter = limiter.take("a", nowNs: start + Self.second / 2)
    let otherClient = limiter.take("b", nowNs: start)

    #expect(burst == [nil, nil, nil, 1])
    #expect(halfSecondLater == nil)
    #expect(rightAfter == 1)
    #expect(otherClient == nil)
  }

  @Test("Retry-After rounds the wait for one token up to whole seconds")
  func retryAfter() {
    let limiter = RateLimiter(rate: RateLimiter.Rate(perSecond: 0.25, burst: 1))
    #expect(limiter.take("a", nowNs: Self.second) == nil)
    #expect(limiter.take("a", nowNs: Self.second) == 4)
    #expect(limiter.take("a", nowNs: 2 * Self.second) == 3)
  }

  @Test("a quiet client's bucket refills only up to the burst")
  func refillCapsAtBurst() {
    let limiter = RateLimiter(rate: RateLimiter.Rate(perSecond: 1, burst: 2))
    _ = limiter.take("a", nowNs: 0)
    let hourLater = 3600 * Self.second
    let taken = (0..<3).map { _ in limiter.take("a", nowNs: hourLater) }
    #expect(taken == [nil, nil, 1])
  }

  @Test("RATE and RATE:BURST parse; the burst defaults to twice the rate")
  func parsing() {
    #expect(RateLimiter.Rate("10") == RateLimiter.Rate(perSecond: 10, burst: 20))
    #expect(RateLimiter.Rate("0.5") == RateLimiter.Rate(perSecond: 0.5, burst: 1))
    #expect(RateLimiter.Rate("100:500") == RateLimiter.Rate(perSecond: 100, burst: 500))
    for bad in ["", "0", "-1", "fast", "1:0", "1:2:3", "inf", "1:"] {
      #expect(RateLimiter.Rate(bad) == nil, "\(bad)")
    }
  }
}
