import Testing

@testable import UptakeCore

@Suite struct TimestampTests {
  @Test(
    arguments: [
      ("1970-01-01T00:00:00Z", 0),
      ("2025-11-29T17:30:15Z", 1_764_437_415_000),
      ("2025-11-29t17:30:15z", 1_764_437_415_000),
      ("2025-11-29T23:00:15+05:30", 1_764_437_415_000),
      ("2025-11-29T09:30:15-08:00", 1_764_437_415_000),
      ("2025-11-30T03:30:15+10:00", 1_764_437_415_000),
      ("2025-11-29T17:30:15-00:00", 1_764_437_415_000),
      ("2025-11-29T17:30:15.1Z", 1_764_437_415_100),
      ("2025-11-29T17:30:15.12Z", 1_764_437_415_120),
      ("2025-11-29T17:30:15.123Z", 1_764_437_415_123),
      ("2025-11-29T17:30:15.123999999999Z", 1_764_437_415_123),
      ("2025-11-29T17:30:15.000001+00:00", 1_764_437_415_000),
      ("1969-12-31T23:59:59.999Z", -1),
      ("1969-12-31T23:59:59.5Z", -500),
      ("1969-12-31T16:00:00-08:00", 0),
      ("1900-01-01T00:00:00Z", -2_208_988_800_000),
      ("0000-01-01T00:00:00Z", -62_167_219_200_000),
      ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
      ("2024-02-29T12:00:00Z", 1_709_208_000_000),
      ("2000-02-29T00:00:00Z", 951_782_400_000),
    ] as [(String, Int64)])
  func parsesRFC3339(text: String, ms: Int64) {
    #expect(Timestamp.parseRFC3339(text) == ms)
  }

  @Test func leapSecondCountsAsTheLastSecondOfTheMinute() {
    #expect(Timestamp.parseRFC3339("2016-12-31T23:59:60Z") == 1_483_228_799_000)
    #expect(Timestamp.parseRFC3339("2016-12-31T23:59:60.250Z") == 1_483_228_799_250)
    #expect(Timestamp.parseRFC3339("2016-12-31T23:59:61Z") == nil)
  }

  @Test(arguments: [
    "", "2025-11-29", "2025-11-29T17:30:15", "2025-11-29 17:30:15Z", "2025-11-29T17:30Z",
    "2025-11-29T17:30:15.Z", "2025-11-29T17:30:15,5Z", "2025-11-29T17:30:15+0530",
    "2025-11-29T17:30:15+05", "2025-11-29T17:30:15+24:00", "2025-11-29T17:30:15+05:60",
    "2025-11-29T17:30:15Z ", " 2025-11-29T17:30:15Z", "2025-11-29T17:30:15ZZ",
    "2025-11-29T17:30:15UTC", "2023-02-29T00:00:00Z", "2100-02-29T00:00:00Z",
    "2025-04-31T00:00:00Z", "2025-13-01T00:00:00Z", "2025-00-10T00:00:00Z",
    "2025-01-00T00:00:00Z", "2025-01-32T00:00:00Z", "2025-11-29T24:00:00Z",
    "2025-11-29T23:60:00Z", "2025-1-29T17:30:15Z", "25-11-29T17:30:15Z", "+2025-11-29T17:30:15Z",
    "2025-11-29T1:30:15Z", "２０２５-11-29T17:30:15Z", "2025-11-29T17:30:15.5",
  ])
  func rejectsWhatIsNotAnRFC3339DateTime(text: String) {
    #expect(Timestamp.parseRFC3339(text) == nil)
  }

  @Test(
    arguments: [
      (0, "1970-01-01T00:00:00Z"),
      (123, "1970-01-01T00:00:00.123Z"),
      (5, "1970-01-01T00:00:00.005Z"),
      (-1, "1969-12-31T23:59:59.999Z"),
      (-86_400_000, "1969-12-31T00:00:00Z"),
      (1_764_437_415_000, "2025-11-29T17:30:15Z"),
      (1_764_437_415_120, "2025-11-29T17:30:15.120Z"),
      (1_709_208_000_000, "2024-02-29T12:00:00Z"),
      (-62_167_219_200_000, "0000-01-01T00:00:00Z"),
    ] as [(Int64, String)])
  func formatsRFC3339(ms: Int64, text: String) {
    #expect(Timestamp.formatRFC3339(ms) == text)
  }

  @Test func formatAndParseRoundTrip() {
    // Spread over 1800-2200, negative times included, at odd steps.
    var ms: Int64 = -5_364_662_400_000
    while ms < 7_258_118_400_000 {
      #expect(Timestamp.parseRFC3339(Timestamp.formatRFC3339(ms)) == ms)
      ms += 7_777_777_777
    }
  }

  @Test(
    arguments: [
      (0, 0), (86_399_999, 0), (86_400_000, 1), (-1, -1), (-86_400_000, -1), (-86_400_001, -2),
      (1_764_437_415_000, 20_421),
    ] as [(Int64, Int64)])
  func dayNumberRoundsDown(ms: Int64, day: Int64) {
    #expect(Timestamp.dayNumber(ms: ms) == day)
  }

  @Test(
    arguments: [
      ("1970-01-01", 0), ("1970-01-02", 1), ("1969-12-31", -1), ("2000-03-01", 11_017),
      ("1900-01-01", -25_567), ("0001-01-01", -719_162), ("2025-11-29", 20_421),
      ("2024-02-29", 19_782), ("2000-02-29", 11_016),
    ] as [(String, Int64)])
  func parsesAndFormatsDates(text: String, day: Int64) {
    #expect(Timestamp.parseDate(text) == day)
    #expect(Timestamp.formatDate(dayNumber: day) == text)
  }

  @Test(arguments: [
    "", "2025-1-01", "2025-01-1", "20250101", "2025/01/01", "2025-01-01T", "2025-01-01 ",
    "2023-02-29", "1900-02-29", "2025-13-01", "2025-00-10", "2025-06-31", "2025-01-32",
    "2025-01-00", "-025-01-01", "2025-0a-01",
  ])
  func rejectsInvalidDates(text: String) {
    #expect(Timestamp.parseDate(text) == nil)
  }

  /// Walks every day from 1600 to 2400 with a plain calendar and checks the
  /// day numbers count up by one and format to that calendar's date.
  @Test func everyDayOfEightCenturies() {
    var expected = Timestamp.parseDate("1600-01-01")!
    for year in 1600...2400 {
      let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
      for month in 1...12 {
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        for day in 1...days {
          let text =
            "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
          #expect(Timestamp.formatDate(dayNumber: expected) == text)
          #expect(Timestamp.parseDate(text) == expected)
          expected += 1
        }
        #expect(Timestamp.parseDate("\(year)-\(month < 10 ? "0" : "")\(month)-\(days + 1)") == nil)
      }
    }
  }
}
