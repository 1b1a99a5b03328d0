import Foundation

/// UTC calendar days relative to the moment a test runs.
public struct Days: Sendable {
  /// Today as days since 1970-01-01.
  public let today: Int64

  public init() {
    today = Int64((Date().timeIntervalSince1970 / 86_400).rounded(.down))
  }

  /// `YYYY-MM-DD` of the day `offset` days from today (-1: yesterday).
  public func date(_ offset: Int64) -> String {
    // Foundation's calendar rather than UptakeCore's Timestamp: this target
    // depends on none of the code it helps test.
    let day = Date(timeIntervalSince1970: Double(today + offset) * 86_400)
    let parts = Days.calendar.dateComponents([.year, .month, .day], from: day)
    return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
  }

  /// An RFC 3339 time on the day `offset` days from today.
  public func time(_ offset: Int64, _ clock: String) -> String {
    "\(date(offset))T\(clock)Z"
  }

  private static let calendar: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
  }()
}
