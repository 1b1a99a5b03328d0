import Testing
import UptakeCore

@testable import UptakeStore

@Suite("DailyDistinctValues: distinct values per app, field and day, capped")
struct DailyDistinctValuesTests {
  let app: Int64 = 1

  @Test("new values are admitted up to the limit, then refused; seen values always")
  func upToTheLimit() {
    var values = DailyDistinctValues(limit: 3)
    for version in ["1.0", "1.1", "1.2"] {
      #expect(values.admit(event(appVersion: version), appNo: app) == nil)
    }

    let refusal = values.admit(event(appVersion: "1.3"), appNo: app)

    #expect(
      refusal
        == DailyDistinctValues.Refusal(
          field: .appVersion, count: 3, day: Timestamp.dayNumber(ms: ms("2026-03-10T00:00:00Z"))))
    #expect(
      refusal?.message
        == "appVersion: the app already has 3 distinct values on 2026-03-10, "
        + "the limit per day (--max-distinct-per-day)")
    #expect(values.admit(event(appVersion: "1.1", at: "2026-03-10T23:59:59Z"), appNo: app) == nil)
    #expect(values.admit(event(appVersion: "1.3"), appNo: app) != nil, "a refusal records nothing")
  }

  @Test("each field is counted on its own, in the contract's order")
  func fieldsApart() {
    var values = DailyDistinctValues(limit: 2)
    #expect(values.admit(event(updateId: "a", appVersion: "1", osVersion: "17"), appNo: app) == nil)
    #expect(values.admit(event(updateId: "b", appVersion: "2", osVersion: "18"), appNo: app) == nil)

    #expect(values.admit(event(updateId: "c", appVersion: "1"), appNo: app)?.field == .updateId)
    #expect(values.admit(event(updateId: "a", appVersion: "3"), appNo: app)?.field == .appVersion)
    #expect(
      values.admit(event(updateId: "a", appVersion: "1", osVersion: "19"), appNo: app)?.field
        == .osVersion)
    #expect(
      values.admit(event(updateId: "c", appVersion: "3", osVersion: "19"), appNo: app)?.field
        == .updateId, "the first field over, as validation reports the first field wrong")
    #expect(values.admit(event(updateId: "b", appVersion: "2"), appNo: app) == nil)
    #expect(values.admit(event(updateId: "b", appVersion: "2", osVersion: nil), appNo: app) == nil)
  }

  @Test("a refused event leaves its other new values uncounted")
  func refusalIsWhole() {
    var values = DailyDistinctValues(limit: 1)
    #expect(values.admit(event(appVersion: "1", osVersion: "17"), appNo: app) == nil)

    #expect(values.admit(event(updateId: "u2", appVersion: "1"), appNo: app)?.field == .updateId)
    #expect(values.admit(event(appVersion: "2"), appNo: app)?.field == .appVersion)

    #expect(values.days.values.first?.updateIds == ["u1"])
    #expect(values.days.values.first?.appVersions == ["1"])
  }

  @Test("every app and every day has an allowance of its own")
  func appsAndDaysApart() {
    var values = DailyDistinctValues(limit: 1)
    #expect(values.admit(event(appVersion: "1"), appNo: 1) == nil)
    #expect(values.admit(event(appVersion: "2"), appNo: 1) != nil)
    #expect(values.admit(event(appVersion: "2"), appNo: 2) == nil)
    #expect(values.admit(event(appVersion: "2", at: "2026-03-11T00:00:00Z"), appNo: 1) == nil)
    #expect(values.admit(event(appVersion: "3", at: "2026-03-09T23:59:59Z"), appNo: 1) == nil)
  }

  @Test("a rollback forgets what was admitted since the last commit, and only that")
  func rollBack() {
    var values = DailyDistinctValues(limit: 2)
    #expect(values.admit(event(appVersion: "1"), appNo: app) == nil)
    values.commit()
    #expect(values.admit(event(appVersion: "2", osVersion: "17"), appNo: app) == nil)
    #expect(values.admit(event(appVersion: "3"), appNo: app) != nil)

    values.rollBack()

    #expect(values.admit(event(appVersion: "3"), appNo: app) == nil)
    #expect(values.admit(event(appVersion: "2"), appNo: app) != nil)
    #expect(values.days.values.first?.osVersions == [])
  }

  @Test("stored values are recorded past the limit; an admitted one still needs room")
  func recordStored() {
    var values = DailyDistinctValues(limit: 1)
    let day = Timestamp.dayNumber(ms: ms("2026-03-10T12:00:00Z"))
    values.record(appNo: app, day: day, updateId: "u1", appVersion: "1", osVersion: nil)
    values.record(appNo: app, day: day, updateId: "u1", appVersion: "2", osVersion: "17")

    #expect(values.admit(event(appVersion: "2"), appNo: app) == nil)
    #expect(values.admit(event(appVersion: "3"), appNo: app)?.count == 2)
    #expect(values.valueCount == 4)
  }

  @Test("days left behind are forgotten")
  func forgetDays() {
    var values = DailyDistinctValues(limit: 1)
    #expect(values.admit(event(appVersion: "1", at: "2026-03-09T12:00:00Z"), appNo: app) == nil)
    #expect(values.admit(event(appVersion: "1", at: "2026-03-10T12:00:00Z"), appNo: app) == nil)

    values.forgetDays(before: Timestamp.dayNumber(ms: ms("2026-03-10T00:00:00Z")))

    #expect(values.days.keys.map(\.day) == [Timestamp.dayNumber(ms: ms("2026-03-10T00:00:00Z"))])
  }
}
