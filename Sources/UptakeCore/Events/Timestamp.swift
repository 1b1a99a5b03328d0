/// Event times and calendar dates in UTC, as milliseconds and day numbers
/// since the Unix epoch. The civil-date arithmetic is Howard Hinnant's
/// days-from-civil algorithm: exact for every proleptic Gregorian date and
/// free of Foundation's calendars and time zones, so results never depend on
/// the machine's locale or zone database.
///
/// Leap seconds: RFC 3339 allows a seconds field of `60`. Epoch milliseconds
/// have no leap seconds, so `23:59:60.250` is read as `23:59:59.250`, the last
/// second of that minute, rather than rejecting a time a correct clock may
/// report.
public enum Timestamp {
  public static let msPerDay: Int64 = 86_400_000

  /// Parses an RFC 3339 date-time with an offset (`Z`, `z` or `±HH:MM`), a
  /// `T` or `t` separator and an optional fraction of any length (kept to the
  /// millisecond, truncated beyond), into epoch milliseconds UTC. Returns nil
  /// for anything else, impossible dates and times included.
  public static func parseRFC3339(_ text: String) -> Int64? {
    withUTF8(text) { parseRFC3339(bytes: $0) }
  }

  static func parseRFC3339(bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
    // The shortest form is 2026-11-29T17:30:15Z: 20 bytes.
    guard bytes.count >= 20, let day = parseDate(bytes: bytes),
      bytes[10] | 0x20 == UInt8(ascii: "t"),
      let hour = twoDigits(bytes, 11), hour < 24, bytes[13] == UInt8(ascii: ":"),
      let minute = twoDigits(bytes, 14), minute < 60, bytes[16] == UInt8(ascii: ":"),
      let second = twoDigits(bytes, 17), second <= 60
    else { return nil }

    var i = 19
    var fractionMs: Int64 = 0
    if bytes[i] == UInt8(ascii: ".") {
      i += 1
      let firstDigit = i
      var scale: Int64 = 100
      while i < bytes.count, let digit = digitValue(bytes[i]) {
        fractionMs += Int64(digit) * scale
        scale /= 10
        i += 1
      }
      guard i > firstDigit else { return nil }
    }

    guard i < bytes.count else { return nil }
    var offsetSeconds: Int64 = 0
    switch bytes[i] {
    case UInt8(ascii: "Z"), UInt8(ascii: "z"):
      i += 1
    case UInt8(ascii: "+"), UInt8(ascii: "-"):
      guard bytes.count - i == 6, let offsetHour = twoDigits(bytes, i + 1), offsetHour < 24,
        bytes[i + 3] == UInt8(ascii: ":"), let offsetMinute = twoDigits(bytes, i + 4),
        offsetMinute < 60
      else { return nil }
      offsetSeconds = Int64(offsetHour * 3600 + offsetMinute * 60)
      if bytes[i] == UInt8(ascii: "-") { offsetSeconds = -offsetSeconds }
      i += 6
    default:
      return nil
    }
    guard i == bytes.count else { return nil }

    let secondOfDay = Int64(hour * 3600 + minute * 60 + min(second, 59))
    return (day * 86_400 + secondOfDay - offsetSeconds) * 1000 + fractionMs
  }

  /// Formats epoch milliseconds as `2026-11-29T17:30:15Z`, with `.123` before
  /// the `Z` only when the millisecond part is not zero.
  public static func formatRFC3339(_ ms: Int64) -> String {
    let day = floorDivide(ms, msPerDay)
    let msOfDay = ms - day * msPerDay
    var out: [UInt8] = []
    out.reserveCapacity(24)
    appendDate(day, to: &out)
    out.append(UInt8(ascii: "T"))
    let secondOfDay = Int(msOfDay / 1000)
    appendDigits(secondOfDay / 3600, width: 2, to: &out)
    out.append(UInt8(ascii: ":"))
    appendDigits(secondOfDay / 60 % 60, width: 2, to: &out)
    out.append(UInt8(ascii: ":"))
    appendDigits(secondOfDay % 60, width: 2, to: &out)
    let millis = Int(msOfDay % 1000)
    if millis != 0 {
      out.append(UInt8(ascii: "."))
      appendDigits(millis, width: 3, to: &out)
    }
    out.append(UInt8(ascii: "Z"))
    return String(decoding: out, as: UTF8.self)
  }

  /// Days since 1970-01-01 of the UTC date containing `ms`; times before
  /// the epoch round down, so -1 ms is day -1.
  public static func dayNumber(ms: Int64) -> Int64 {
    floorDivide(ms, msPerDay)
  }

  /// Hours since 1970-01-01T00 UTC (negative before).
  public static func hourNumber(ms: Int64) -> Int64 {
    floorDivide(ms, msPerDay / 24)
  }

  /// The day number of an hour number.
  public static func dayNumber(hour: Int64) -> Int64 {
    floorDivide(hour, 24)
  }

  /// Parses exactly `YYYY-MM-DD` naming a real calendar date into its day
  /// number, or returns nil.
  public static func parseDate(_ text: String) -> Int64? {
    guard text.utf8.count == 10 else { return nil }
    return withUTF8(text) { parseDate(bytes: $0) }
  }

  /// Formats a day number as `YYYY-MM-DD`.
  public static func formatDate(dayNumber: Int64) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(10)
    appendDate(dayNumber, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// Runs `body` on the string's UTF-8 bytes, without copying them when the
  /// string stores them contiguously (as every native string does).
  private static func withUTF8<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
    return Array(text.utf8).withUnsafeBufferPointer(body)
  }

  /// Reads the `YYYY-MM-DD` in the first 10 bytes.
  private static func parseDate(bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
    guard bytes.count >= 10, let centuries = twoDigits(bytes, 0), let years = twoDigits(bytes, 2),
      bytes[4] == UInt8(ascii: "-"), let month = twoDigits(bytes, 5),
      bytes[7] == UInt8(ascii: "-"), let day = twoDigits(bytes, 8)
    else { return nil }
    let year = Int64(centuries * 100 + years)
    guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month)
    else { return nil }
    return daysFromCivil(year: year, month: month, day: day)
  }

  static func isLeapYear(_ year: Int64) -> Bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
  }

  static func daysInMonth(year: Int64, month: Int) -> Int {
    switch month {
    case 2: isLeapYear(year) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Day number of a proleptic Gregorian date. Years are counted from March
  /// so that the leap day falls at the end of the year, and in 400-year eras
  /// so that the arithmetic works the same on both sides of year 0.
  static func daysFromCivil(year: Int64, month: Int, day: Int) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = floorDivide(y, 400)
    let yearOfEra = y - era * 400
    let m = Int64(month)
    let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The inverse of `daysFromCivil`.
  static func civilFromDays(_ dayNumber: Int64) -> (year: Int64, month: Int, day: Int) {
    let z = dayNumber + 719_468
    let era = floorDivide(z, 146_097)
    let dayOfEra = z - era * 146_097
    let yearOfEra =
      (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
    let month = Int(mp < 10 ? mp + 3 : mp - 9)
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    return (year, month, day)
  }

  static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
  }

  private static func appendDate(_ dayNumber: Int64, to out: inout [UInt8]) {
    let (year, month, day) = civilFromDays(dayNumber)
    if year < 0 { out.append(UInt8(ascii: "-")) }
    let digits = String(year.magnitude)
    for _ in digits.utf8.count..<max(4, digits.utf8.count) { out.append(UInt8(ascii: "0")) }
    out.append(contentsOf: digits.utf8)
    out.append(UInt8(ascii: "-"))
    appendDigits(month, width: 2, to: &out)
    out.append(UInt8(ascii: "-"))
    appendDigits(day, width: 2, to: &out)
  }

  private static func appendDigits(_ value: Int, width: Int, to out: inout [UInt8]) {
    var divisor = 1
    for _ in 1..<width { divisor *= 10 }
    while divisor > 0 {
      out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
      divisor /= 10
    }
  }

  private static func digitValue(_ byte: UInt8) -> Int? {
    let digit = byte &- UInt8(ascii: "0")
    return digit < 10 ? Int(digit) : nil
  }

  private static func twoDigits(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int? {
    guard i + 1 < bytes.count, let high = digitValue(bytes[i]), let low = digitValue(bytes[i + 1])
    else { return nil }
    return high * 10 + low
  }
}
