import Foundation
import Testing
import UptakeCore
import UptakeDataGen

@testable import UptakeStore

/// Every report must be a function of the stored events alone: not of the
/// order they arrived in, how they were batched, when folds ran between
/// them, or whether the daemon restarted. Clients buffer events offline and
/// retry lost requests, so every order happens in production, and a report
/// that depends on it gives different figures on two servers fed alike.
///
/// The property test stores one random event set (`ArrivalTraffic`) in
/// every `ArrivalOrder`, each in a database of its own (`ArrivalRun`), and
/// compares every report whole with the brute-force `ReportReference`. Its
/// seed is random on each run and printed, and every failure names it;
/// `UPTAKE_PROPERTY_SEED=<seed>` replays a run. The hard cases below write
/// out by hand, with their figures, the orders that the funnel's design
/// (rollups of each install's first impression, downloads and version
/// changes, plus the events not folded yet) makes suspect.
@Suite("Reports whatever the arrival order")
struct ArrivalOrderPropertyTests {
  /// The seed of this run: `UPTAKE_PROPERTY_SEED` when set, else random.
  static let seed: UInt64 = {
    if let text = ProcessInfo.processInfo.environment["UPTAKE_PROPERTY_SEED"] {
      guard let seed = UInt64(text) else {
        preconditionFailure("UPTAKE_PROPERTY_SEED is not a number: \(text)")
      }
      return seed
    }
    return UInt64.random(in: 0...UInt64.max)
  }()

  /// This run's traffic and every report over all of it, worked out once
  /// for every order. The reference counts its events as app 0: each
  /// database's own app has the same reports (`ExpectedReports.forApp`).
  static let everyEvent: (traffic: ArrivalTraffic, reports: [ExpectedReports]) = {
    let today = Timestamp.dayNumber(ms: Int64(Date().timeIntervalSince1970 * 1000))
    let traffic = ArrivalTraffic(seed: seed, today: today)
    var reference = ReportReference()
    reference.add(traffic.events.map { (0, $0) })
    return (traffic, ArrivalRun.expectations(reference, appNo: 0, traffic))
  }()

  /// One order a test case, so that the orders run side by side.
  @Test(
    "every report, whatever the order, batching, folds and restarts",
    arguments: ArrivalOrder.allCases)
  func everyReportWhateverTheArrivalOrder(_ order: ArrivalOrder) throws {
    let seed = Self.seed
    let (traffic, reports) = Self.everyEvent
    print(
      "arrival-order property seed: \(seed) (replay: UPTAKE_PROPERTY_SEED=\(seed)), "
        + "\(traffic.events.count) events ending \(Timestamp.formatRFC3339(traffic.nowMs))")
    let store = try StoreUnderTest(
      name: "database fed in \(order.testDescription) (seed \(seed))", appIds: ["app"])
    var run = ArrivalRun(order, of: traffic, on: store, seed: seed)
    print("seed \(seed), \(store.name): \(run.description)")
    let comparison = ReportComparison()
    do {
      try run.run(everyEvent: reports, comparison)
    } catch {
      Issue.record("\(store.name): threw \(error)")
    }
    comparison.finish()
  }

  // MARK: - Hard cases

  /// The hard cases' day: far enough back that the events of the days
  /// after it are in the past too.
  static let day = Timestamp.dayNumber(ms: Int64(Date().timeIntervalSince1970 * 1000)) - 10
  static let range = DayRange(fromDay: day, toDay: day + 6)

  /// An event of install `installId` at `time` ("10:00", or "d1 10:00" a
  /// day later, "10:00:00.250" for milliseconds) on the hard cases' day.
  static func event(
    _ label: String, _ action: Action, _ version: String, _ time: String,
    install installId: String = "a", update: String = "U", isTest: Bool = false
  ) -> (String, Event) {
    var days: Int64 = 0
    var clock = Substring(time)
    if clock.hasPrefix("d"), let space = clock.firstIndex(of: " ") {
      days = Int64(clock[clock.index(after: clock.startIndex)..<space])!
      clock = clock[clock.index(after: space)...]
    }
    let parts = clock.split(separator: ":")
    let seconds = parts.count > 2 ? Double(parts[2])! : 0
    let ms =
      (day + days) * 86_400_000 + Int64(parts[0])! * 3_600_000 + Int64(parts[1])! * 60_000
      + Int64((seconds * 1000).rounded())
    return (
      label,
      Event(
        id: "\(label)-\(installId)", updateId: update, action: action, appVersion: version,
        installId: installId, timestampMs: ms, isTest: isTest)
    )
  }

  static func figures(_ impressions: Int, _ downloads: Int, _ upgraded: Int, _ hours: Double?)
    -> FunnelResult
  {
    FunnelResult(
      impressions: impressions, downloads: downloads, upgraded: upgraded,
      medianHoursToUpgrade: hours)
  }

  @Test("a download arriving before its impression")
  func downloadBeforeImpression() throws {
    // a: shown, downloads five minutes later, seen on 2.0 four hours after
    // the impression. b: downloaded before it was shown, never after.
    try HandWrittenArrivals(
      [
        Self.event("imp", .impression, "1.0", "10:00"),
        Self.event("dl", .download, "1.0", "10:05"),
        Self.event("up", .later, "2.0", "14:00", update: "V"),
        Self.event("dl-b", .download, "1.0", "09:00", install: "b"),
        Self.event("imp-b", .impression, "1.0", "10:00", install: "b"),
      ], range: Self.range,
      funnels: [("U", nil, .exclude, Self.figures(2, 1, 1, 4))]
    ).check()
  }

  @Test("the new version's events arriving before the old version's")
  func newVersionBeforeOld() throws {
    // a: shown on 1.0, downloads, shown again the next morning on 2.0 and
    // chooses later there; b is only ever seen on 2.0.
    try HandWrittenArrivals(
      [
        Self.event("imp-1.0", .impression, "1.0", "10:00"),
        Self.event("dl-1.0", .download, "1.0", "10:10"),
        Self.event("imp-2.0", .impression, "2.0", "d1 09:00"),
        Self.event("later-2.0", .later, "2.0", "d1 09:01"),
        Self.event("imp-b-2.0", .impression, "2.0", "d1 08:00", install: "b"),
      ], range: Self.range,
      funnels: [
        ("U", nil, .exclude, Self.figures(2, 1, 1, 23)),
        ("U", "2.0", .exclude, Self.figures(2, 1, 1, 23)),
        ("U", "3.0", .exclude, Self.figures(2, 1, 0, nil)),
      ]
    ).check()
  }

  @Test("an impression arriving after the install was seen, and folded, on a higher version")
  func impressionAfterHigherVersionFolded() throws {
    // a: shown on 1.0, downloads, seen on 2.0 the next day (another
    // update's prompt) and shown this one again on 2.0 the day after.
    // Orders with the 2.0 events first, folded each arrival, fold them
    // before the 1.0 impression arrives.
    try HandWrittenArrivals(
      [
        Self.event("imp-1.0", .impression, "1.0", "10:00"),
        Self.event("dl", .download, "1.0", "10:30"),
        Self.event("seen-2.0", .later, "2.0", "d1 12:00", update: "V"),
        Self.event("imp-2.0", .impression, "2.0", "d2 09:00"),
      ], range: Self.range,
      funnels: [
        ("U", nil, .exclude, Self.figures(1, 1, 1, 26)),
        ("U", "2.0", .include, Self.figures(1, 1, 1, 26)),
      ]
    ).check()
  }

  @Test("duplicates of late events, sent again in every order, counted once")
  func duplicatesOfLateEvents() throws {
    // The download and the upgrade are sent twice: before, between and
    // after the others.
    try HandWrittenArrivals(
      [
        Self.event("imp", .impression, "1.0", "10:00"),
        Self.event("dl", .download, "1.0", "10:05"),
        Self.event("up", .later, "2.0", "d1 10:00"),
      ], resending: [1, 2], range: Self.range,
      funnels: [
        ("U", nil, .exclude, Self.figures(1, 1, 1, 24)),
        ("U", nil, .include, Self.figures(1, 1, 1, 24)),
      ]
    ).check()
  }

  @Test("test and real events of one install, interleaved")
  func testAndRealEventsInterleaved() throws {
    // a's impression and download are real; a test impression falls
    // between them, a real later on 1.0 the next day, and the only sign of
    // 2.0 is a test event two days after the impression.
    try HandWrittenArrivals(
      [
        Self.event("imp", .impression, "1.0", "10:00"),
        Self.event("test-imp", .impression, "1.0", "10:02", isTest: true),
        Self.event("dl", .download, "1.0", "10:05"),
        Self.event("later-1.0", .later, "1.0", "d1 10:00"),
        Self.event("test-2.0", .later, "2.0", "d2 10:00", isTest: true),
      ], range: Self.range,
      funnels: [
        ("U", nil, .exclude, Self.figures(1, 1, 0, nil)),
        ("U", nil, .include, Self.figures(1, 1, 1, 48)),
        ("U", nil, .only, Self.figures(1, 0, 0, nil)),
      ]
    ).check()
  }

  @Test("a download not folded yet, before the update's folded days, upgraded by a test event")
  func unfoldedDownloadBeforeTheFoldedDays() throws {
    // a was shown and downloaded on the first day, and its only sign of
    // 2.0 is a test event of another update the next day; b was shown on
    // the third. Orders that fold b's and the test event before a's arrive
    // leave a's download unfolded, before every folded day of U: the test
    // event must still be found (seed 13533067189854282803 found this).
    try HandWrittenArrivals(
      [
        Self.event("imp", .impression, "1.0", "10:00"),
        Self.event("dl", .download, "1.0", "10:05"),
        Self.event("test-2.0", .later, "2.0", "d1 10:00", update: "V", isTest: true),
        Self.event("imp-b", .impression, "1.0", "d2 10:00", install: "b"),
      ], range: Self.range,
      funnels: [
        ("U", nil, .include, Self.figures(2, 1, 1, 24)),
        ("U", "2.0", .include, Self.figures(2, 1, 1, 24)),
        ("U", nil, .exclude, Self.figures(2, 1, 0, nil)),
      ]
    ).check()
  }

  @Test("downloads before and after the first impression on one day: the first after it counts")
  func downloadsAroundTheImpression() throws {
    // a downloaded at 08:00 (before the prompt: not the funnel's), was
    // shown at 10:00, downloaded at 11:00, seen on 2.0 at 12:00, and
    // downloaded again at 13:00. The upgrade follows the 11:00 download.
    try HandWrittenArrivals(
      [
        Self.event("dl-08", .download, "1.0", "08:00"),
        Self.event("imp-10", .impression, "1.0", "10:00"),
        Self.event("dl-11", .download, "1.0", "11:00"),
        Self.event("seen-2.0-12", .later, "2.0", "12:00", update: "V"),
        Self.event("dl-13", .download, "1.0", "13:00"),
      ], range: Self.range,
      funnels: [
        ("U", nil, .exclude, Self.figures(1, 1, 1, 2)),
        ("U", "2.0", .exclude, Self.figures(1, 1, 1, 2)),
      ]
    ).check()
  }

  @Test("already on a higher version before the download: the first event after it is the upgrade")
  func higherVersionBeforeTheDownload() throws {
    // a was shown on 1.0 at 10:00 and seen on 2.0 at 10:30, before its
    // download at 11:00 (on 2.0); on 2.0 again in the download's very
    // millisecond (not after it), then at 12:30, the upgrade.
    try HandWrittenArrivals(
      [
        Self.event("imp-1.0", .impression, "1.0", "10:00"),
        Self.event("seen-2.0-1030", .later, "2.0", "10:30", update: "V"),
        Self.event("dl-2.0-11", .download, "2.0", "11:00"),
        Self.event("seen-2.0-11", .ignore, "2.0", "11:00", update: "V"),
        Self.event("seen-2.0-1230", .later, "2.0", "12:30", update: "V"),
      ], range: Self.range,
      funnels: [
        ("U", nil, .exclude, Self.figures(1, 1, 1, 2.5)),
        ("U", "2.0", .exclude, Self.figures(1, 1, 1, 2.5)),
      ]
    ).check()
  }

  @Test("two impressions in one millisecond on different versions: the lowest version counts")
  func impressionsInOneMillisecond() throws {
    // a was shown on 2.0 and on 1.0 in the same millisecond, downloaded,
    // and seen on 2.0 the next day: an upgrade from 1.0, none from 2.0.
    // b, shown on 3.0 in that millisecond too, counts as an impression.
    try HandWrittenArrivals(
      [
        Self.event("imp-2.0", .impression, "2.0", "10:00:00.250"),
        Self.event("imp-1.0", .impression, "1.0", "10:00:00.250"),
        Self.event("dl", .download, "1.0", "10:05"),
        Self.event("seen-2.0", .later, "2.0", "d1 10:00:00.250", update: "V"),
        Self.event("imp-b-3.0", .impression, "3.0", "10:00:00.250", install: "b"),
      ], range: Self.range,
      funnels: [
        ("U", nil, .exclude, Self.figures(2, 1, 1, 24)),
        ("U", "2.0", .exclude, Self.figures(2, 1, 1, 24)),
        ("U", "2.10", .exclude, Self.figures(2, 1, 0, nil)),
      ]
    ).check()
  }
}
