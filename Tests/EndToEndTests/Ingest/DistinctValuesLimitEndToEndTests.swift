import Foundation
import Testing
import UptakeTestSupport

/// Issue 25: anyone holding an app's public ingest key can post events
/// with values of their choosing. Past `--max-distinct-per-day` distinct
/// values of a field on a day, an event bringing a new one is rejected
/// alone; values already seen that day are still taken.
@Suite("uptaked: distinct values per app, field and day are capped", .timeLimit(.minutes(3)))
struct DistinctValuesLimitEndToEndTests {
  let days = Days()

  /// The capped fields, and an event carrying `value` in each.
  enum Field: String, CaseIterable, CustomTestStringConvertible {
    case updateId, appVersion, osVersion

    func event(_ value: String, id: String? = nil, on time: String) -> String {
      switch self {
      case .updateId: eventJSON(id: id, updateId: value, timestamp: time)
      case .appVersion: eventJSON(id: id, appVersion: value, timestamp: time)
      case .osVersion: eventJSON(id: id, timestamp: time, osVersion: value)
      }
    }

    var testDescription: String { rawValue }
  }

  private func post(_ fixture: DaemonFixture, _ events: [String]) throws -> String {
    let response = try HTTPClient().postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON(events))
    try #require(response.status == 200, "\(response.text)")
    return response.text
  }

  private func refusal(_ field: Field, _ count: Int, on offset: Int64) -> String {
    "\(field.rawValue): the app already has \(count) distinct values on \(days.date(offset)), "
      + "the limit per day (--max-distinct-per-day)"
  }

  @Test(
    "past the limit a new value is rejected alone; seen values, other days and restarts keep it",
    arguments: Field.allCases)
  func capPerDay(field: Field) throws {
    let fixture = try DaemonFixture(arguments: ["--max-distinct-per-day", "5"])
    defer { fixture.tearDown() }
    let day = days.time(-2, "12:00:00")
    let values = (1...8).map { "v\($0)" }

    let first = try post(
      fixture, values.enumerated().map { field.event($1, id: "first-\($0)", on: day) })

    let message = refusal(field, 5, on: -2)
    #expect(
      first
        == #"{"accepted":5,"duplicates":0,"rejected":["#
        + (5...7).map { #"{"index":\#($0),"error":"\#(message)"}"# }.joined(separator: ",")
        + "]}")

    // Values already seen that day are taken; a new one is not; another
    // day has an allowance of its own.
    let seen = try post(
      fixture,
      [
        field.event("v1", on: day), field.event("v5", on: days.time(-2, "23:59:59")),
        field.event("v9", on: day), field.event("v9", on: days.time(-3, "08:00:00")),
      ])
    #expect(
      seen == #"{"accepted":3,"duplicates":0,"rejected":[{"index":2,"error":"\#(message)"}]}"#)

    try fixture.restart()

    // The allowance is counted from the stored events, so it stays spent.
    let afterRestart = try post(
      fixture,
      [
        field.event("v6", on: day), field.event("v2", on: day),
        field.event("v6", on: days.time(-3, "09:00:00")),
      ])
    #expect(
      afterRestart
        == #"{"accepted":2,"duplicates":0,"rejected":[{"index":0,"error":"\#(message)"}]}"#)

    // A retried event is a duplicate, not a rejection, whatever its values.
    let retried = try post(fixture, [field.event("v7", id: "first-0", on: day)])
    #expect(retried == #"{"accepted":0,"duplicates":1,"rejected":[]}"#)
  }

  @Test("without the flag an app may have 1000 distinct values of a field a day")
  func defaultLimit() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let day = days.time(-1, "12:00:00")
    let versions = (0..<1001).map { eventJSON(appVersion: "1.0.\($0)", timestamp: day) }

    let full = try post(fixture, Array(versions.prefix(1000)))
    let over = try post(fixture, [versions[1000], versions[999]])

    #expect(full == #"{"accepted":1000,"duplicates":0,"rejected":[]}"#)
    #expect(
      over
        == #"{"accepted":1,"duplicates":0,"rejected":[{"index":0,"error":"\#(refusal(.appVersion, 1000, on: -1))"}]}"#
    )
  }

  @Test("the store's rejections and the validator's are listed together by request index")
  func rejectionsInRequestOrder() throws {
    let fixture = try DaemonFixture(arguments: ["--max-distinct-per-day", "2"])
    defer { fixture.tearDown() }
    let day = days.time(-1, "06:00:00")

    let answer = try post(
      fixture,
      [
        eventJSON(appVersion: "1", timestamp: day),
        eventJSON(appVersion: "2", timestamp: day),
        eventJSON(appVersion: "3", timestamp: day),
        eventJSON(action: "clicked", appVersion: "1", timestamp: day),
        eventJSON(appVersion: "4", timestamp: day, test: true),
        eventJSON(appVersion: "2", timestamp: day, test: true),
      ])

    // Test events count with the others: the values are the app's.
    let message = refusal(.appVersion, 2, on: -1)
    #expect(
      answer
        == #"{"accepted":3,"duplicates":0,"rejected":[{"index":2,"error":"\#(message)"},"#
        + #"{"index":3,"error":"action: unknown value \"clicked\""},"#
        + #"{"index":4,"error":"\#(message)"}]}"#)
  }

  @Test("--max-distinct-per-day is checked at start")
  func flagIsValidated() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    for value in ["-1", "many", "1000001"] {
      let result = try run(
        BuiltProgram.path("uptaked"),
        ["--db", scratch.databasePath, "--listen", "127.0.0.1:0", "--max-distinct-per-day", value])
      #expect(result.status == 64, "\(value): \(result.standardError)")
      #expect(result.standardError.contains("--max-distinct-per-day"), "\(result.standardError)")
    }
  }

  @Test(
    "uptake import keeps the same limit, counting what is stored, and reports its rejections by line"
  )
  func importKeepsTheLimit() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let added = try uptake(["apps", "add", "default", "--json", "--db", scratch.databasePath])
    try #require(added.status == 0, "\(added.standardError)")
    let file = scratch.path("events.ndjson")
    let day = days.time(-4, "10:00:00")
    let lines = (1...4).map { eventJSON(id: "a\($0)", timestamp: day, osVersion: "17.\($0)") }
    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))
    let arguments = [
      "import", "--app", "default", file, "--db", scratch.databasePath,
      "--max-distinct-per-day", "3",
    ]

    let first = try uptake(arguments)
    #expect(first.status == 0, "\(first.standardError)")
    #expect(first.standardOutput == "accepted 3, duplicates 0, rejected 1\n")
    #expect(first.standardError == "line 4: \(refusal(.osVersion, 3, on: -4))\n")

    // Again: the stored events are duplicates, and the fourth is still over.
    let again = try uptake(arguments)
    #expect(again.standardOutput == "accepted 0, duplicates 3, rejected 1\n")
  }
}
