import Foundation
import Testing

@testable import UptakeClient

@Suite("Retry delays: exponential backoff with jitter, Retry-After")
struct RetryDelayTests {
  @Test("the ceiling doubles per try up to the maximum; the delay is in its upper half")
  func backoffDoubles() {
    for (attempt, ceiling) in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (7, 60.0), (40, 60.0)] {
      for _ in 0..<50 {
        let delay = RetryDelay.backoff(afterAttempt: attempt, initial: 1, maximum: 60)
        #expect(delay >= ceiling / 2 && delay <= ceiling, "attempt \(attempt): \(delay)")
      }
    }
  }

  @Test("jitter spreads the delays")
  func jitter() {
    let delays = Set(
      (0..<20).map { _ in RetryDelay.backoff(afterAttempt: 3, initial: 1, maximum: 60) })
    #expect(delays.count > 10)
  }

  @Test("Retry-After in seconds or as an HTTP-date")
  func retryAfter() {
    let now = Date(timeIntervalSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT
    #expect(RetryDelay.retryAfter("120", now: now) == 120)
    #expect(RetryDelay.retryAfter(" 0 ", now: now) == 0)
    #expect(RetryDelay.retryAfter("Wed, 21 Oct 2015 07:28:30 GMT", now: now) == 30)
    #expect(RetryDelay.retryAfter("Wed, 21 Oct 2015 07:27:00 GMT", now: now) == 0)
    #expect(RetryDelay.retryAfter(nil, now: now) == nil)
    #expect(RetryDelay.retryAfter("soon", now: now) == nil)
  }
}
