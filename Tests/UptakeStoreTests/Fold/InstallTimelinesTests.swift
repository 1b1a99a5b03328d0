import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

/// The fold reads the install_days rows of a step's installs ahead, in one
/// pass that steps over short gaps and seeks past long ones. Whatever the
/// path, each install must get exactly the rows a lookup of its own gives.
@Suite("InstallTimelines: each install's rows, read ahead in key order")
struct InstallTimelinesTests {
  /// install_days with, for each of two apps and both test flags, installs
  /// keyed 0, 10, 20, ... each with `days` rows (two versions on day 0,
  /// the first with a download a millisecond after its first time).
  static func store(_ database: Database, installs: Int, days: Int) throws {
    let insert = try database.statement(
      """
      INSERT INTO install_days (app_no, is_test, install_key, day, app_version, first_ts, times)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      """)
    try database.write { () throws(StoreError) in
      for appNo: Int64 in [1, 2] {
        for isTest: Int64 in [0, 1] {
          for install in 0..<installs {
            for day in 0..<days {
              for version in day == 0 ? ["2.0.0", "2.1.0"] : ["2.1.0"] {
                try insert.bind(1, appNo)
                try insert.bind(2, isTest)
                try insert.bind(3, Int64(install * 10) - 5_000)
                try insert.bind(4, Int64(20_000 + day))
                try insert.bind(5, version)
                let dayStartMs = Int64(20_000 + day) * Timestamp.msPerDay
                let firstTs = dayStartMs + Int64(install * 1_000 + day)
                try insert.bind(6, firstTs)
                var times: [UInt8] = []
                SeenTimes.pack(
                  [(firstTs, nil)] + (version == "2.0.0" ? [(firstTs + 1, "u1")] : []),
                  dayStartMs: dayStartMs, into: &times)
                try insert.bind(7, times)
                try insert.run()
              }
            }
          }
        }
      }
    }
  }

  static func event(appNo: Int64, isTest: Bool, installKey: Int64) -> FoldEvent {
    FoldEvent(
      installKey: installKey, timestampMs: 0, appNo: appNo, update: 0, version: 0, day: 0,
      dimensions: 0, action: 0, isTest: isTest, hasInstall: true)
  }

  /// What a lookup of the install alone gives: a line for each time, with
  /// its version and download as texts.
  static func lookedUp(_ event: FoldEvent, _ database: Database) throws -> [String] {
    let select = try database.statement(
      """
      SELECT day, app_version, times FROM install_days
      WHERE app_no = ? AND is_test = ? AND install_key = ? ORDER BY day, app_version
      """)
    try select.bind(1, event.appNo)
    try select.bind(2, Int64(event.isTest ? 1 : 0))
    try select.bind(3, event.installKey)
    defer { select.reset() }
    var rows: [String] = []
    while try select.step() {
      let version = select.string(1)
      select.withBlob(2) { times in
        SeenTimes.forEach(in: times, dayStartMs: select.int64(0) * Timestamp.msPerDay) {
          ts, download in
          rows.append(
            "\(version) \(ts) \(download.map { String(decoding: $0, as: UTF8.self) } ?? "-")")
        }
      }
    }
    return rows
  }

  /// Reads `keys` for every app and flag (each key twice, as two events
  /// of one install) and compares every install with its own lookup.
  static func expectLookups(_ database: Database, keys: [Int64]) throws {
    var events: [FoldEvent] = []
    for appNo: Int64 in [1, 2] {
      for isTest in [false, true] {
        for key in keys.sorted() {
          events +=
            [event(appNo: appNo, isTest: isTest, installKey: key)] + [
              event(appNo: appNo, isTest: isTest, installKey: key)
            ]
        }
      }
    }
    // Events without an install come last and are not read.
    events.append(
      FoldEvent(
        installKey: 0, timestampMs: 0, appNo: 1, update: 0, version: 0, day: 0, dimensions: 0,
        action: 0, isTest: false, hasInstall: false))
    var versions = TextNumbering()
    var updates = TextNumbering()
    var reader = try InstallTimelines.Reader(database)
    let timelines = try reader.read(events[...], &versions, &updates)
    var mismatches = 0
    for (index, event) in stride(from: 0, to: events.count - 1, by: 2).map({ events[$0] })
      .enumerated()
    {
      let read = timelines.timeline(index).map {
        let download =
          $0.download == TimelinePoint.noDownload ? "-" : updates.texts[Int($0.download)]
        return "\(versions.texts[Int($0.version)]) \($0.ts) \(download)"
      }
      if read != (try lookedUp(event, database)) { mismatches += 1 }
    }
    #expect(mismatches == 0, "\(mismatches) of \(events.count / 2) installs")
    try expectSameInRuns(events, database, whole: timelines, versions, updates)
  }

  /// Reads `events` again in runs of a few installs (`InstallTimelines.Reader`,
  /// as a fold step does) and expects the points read whole.
  static func expectSameInRuns(
    _ events: [FoldEvent], _ database: Database, whole: InstallTimelines,
    _ versions: TextNumbering, _ updates: TextNumbering
  ) throws {
    var runVersions = TextNumbering()
    var runUpdates = TextNumbering()
    var reader = try InstallTimelines.Reader(database)
    var read: [String] = []
    var runs = 0
    var start = 0
    while start < events.count && events[start].hasInstall {
      let end = events.endOfInstalls(from: start, events: 7)
      let run = try reader.read(events[start..<end], &runVersions, &runUpdates)
      read += run.points.map { describe($0, runVersions, runUpdates) }
      runs += 1
      start = end
    }
    #expect(runs > 1)
    #expect(read == whole.points.map { describe($0, versions, updates) })
  }

  static func describe(_ point: TimelinePoint, _ versions: TextNumbering, _ updates: TextNumbering)
    -> String
  {
    let download =
      point.download == TimelinePoint.noDownload ? "-" : updates.texts[Int(point.download)]
    return "\(versions.texts[Int(point.version)]) \(point.ts) \(download)"
  }

  @Test("installs close together, stepped from one to the next")
  func dense() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    try Self.store(database, installs: 3_000, days: 2)
    // Every stored install, some unknown between them, and some past the
    // last row (the cursor at the end of the table).
    let keys = (0..<3_000).map { Int64($0 * 10) - 5_000 } + [-4_995, -5_001, 7, 25_000, 30_000]
    try Self.expectLookups(database, keys: keys)
  }

  @Test("installs far apart, sought: past the trial, stepping gives way to seeking")
  func sparse() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    try Self.store(database, installs: 40_000, days: 3)
    // Every 37th install: 4 rows each, 148 rows apart, well past the steps
    // allowed before seeking; over 1,000 of them, past the trial.
    let keys = stride(from: 0, to: 40_000, by: 37).map { Int64($0 * 10) - 5_000 }
    #expect(keys.count > InstallTimelines.trialInstalls)
    try Self.expectLookups(database, keys: keys)
  }

  @Test("no rows at all: every install empty")
  func empty() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    try Self.expectLookups(database, keys: [-3, 0, 5, 1 << 40])
  }
}
