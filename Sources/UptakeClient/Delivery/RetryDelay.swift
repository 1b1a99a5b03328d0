import Foundation

/// How long to wait before the next try of a batch.
enum RetryDelay {
  /// Exponential backoff with jitter before try `attempt + 1` (attempt 1 is
  /// the first try): the ceiling doubles from `initial` up to `maximum`, and
  /// the delay is drawn from its upper half, so that a crowd of apps that
  /// failed together does not come back together, yet none retries at once.
  static func backoff(afterAttempt attempt: Int, initial: TimeInterval, maximum: TimeInterval)
    -> TimeInterval
  {
    let ceiling = min(maximum, initial * pow(2, Double(min(attempt - 1, 30))))
    guard ceiling > 0 else { return 0 }
    return Double.random(in: (ceiling / 2)...ceiling)
  }

  /// The seconds a `Retry-After` header asks for: delay-seconds or an
  /// HTTP-date (RFC 9110); nil when absent or unreadable.
  static func retryAfter(_ value: String?, now: Date = Date()) -> TimeInterval? {
    guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
      return nil
    }
    if let seconds = Int(value) { return TimeInterval(max(0, seconds)) }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
    guard let date = formatter.date(from: value) else { return nil }
    return max(0, date.timeIntervalSince(now))
  }
}
