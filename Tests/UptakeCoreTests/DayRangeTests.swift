import Testing
import UptakeCore

@Suite struct DayRangeTests {
  @Test("the widest range the dates can name parses, 3.65 million days")
  func widest() throws {
    let range = try DayRange.parse(from: "0000-01-01", to: "9999-12-31", nowMs: 0).get()
    #expect(range.toDay - range.fromDay + 1 == 3_652_425)
  }

  @Test(
    "clamped(to:) keeps the days of the range within the given days",
    arguments: [
      ((0, 100), (10, 20), (10, 20)),
      ((10, 20), (0, 100), (10, 20)),
      ((0, 15), (10, 20), (10, 15)),
      ((15, 30), (10, 20), (15, 20)),
      ((20, 30), (10, 20), (20, 20)),
      ((-719_528, 2_932_896), (20_500, 20_530), (20_500, 20_530)),
    ] as [((Int64, Int64), (Int64, Int64), (Int64, Int64))])
  func clamped(
    range: (Int64, Int64), days: (Int64, Int64), expected: (Int64, Int64)
  ) {
    #expect(
      DayRange(fromDay: range.0, toDay: range.1).clamped(to: days.0...days.1)
        == DayRange(fromDay: expected.0, toDay: expected.1))
  }

  @Test("clamped(to:) is nil when the range and the days do not meet")
  func disjoint() {
    #expect(DayRange(fromDay: 0, toDay: 9).clamped(to: 10...20) == nil)
    #expect(DayRange(fromDay: 21, toDay: 30).clamped(to: 10...20) == nil)
  }
}
