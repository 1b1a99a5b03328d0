import Foundation
import Testing
import UptakeCore
import UptakeDataGen
import UptakeTestSupport

@testable import UptakeStore

/// Every report of the store, checked against `ReportReference` over
/// simulated traffic of two apps (plus a few events written by hand): before
/// any fold, part-way through folding with more events arriving, and after
/// folding everything; in a database fed in generation order and in one fed
/// the same events shuffled, since reports must not depend on arrival order.
///
/// The simulation comes from UptakeDataGen. This target does not depend on
/// it (Package.swift), so `DataGen/` links its two source files in here.
@Suite("Reports against a brute-force reference")
struct ReportReferenceTests {
  static let scenarios = [
    ReferenceScenario(seed: 11, installs: 300, updates: 5, days: 20),
    ReferenceScenario(seed: 23, installs: 350, updates: 12, days: 40),
    ReferenceScenario(seed: 37, installs: 300, updates: 20, days: 30),
  ]

  @Test("every report equals the reference, before, during and after folding", arguments: scenarios)
  func everyReportThroughFolding(_ scenario: ReferenceScenario) throws {
    let world = try ReferenceWorld(appIds: ["app-a", "app-b"])
    world.rotation = Self.scenarios.firstIndex { $0.seed == scenario.seed } ?? 0
    let comparison = ReportComparison()
    let (appA, appB) = (world.apps[0], world.apps[1])

    let simulation = EventSimulation(scenario.parameters(seed: scenario.seed, endMs: world.nowMs))
    try world.add(
      [
        (appA, simulation.events() + handEvents(day: world.today - 3, simulation.updates)),
        (appB, scenario.events(seed: scenario.seed + 1000, share: 0.4, endMs: world.nowMs)),
      ], shuffleSeed: scenario.seed)
    let queried = QueriedIds(simulation)
    world.checkEveryReport("before any fold", queried, comparison)

    try world.foldSome(maxEvents: 1000, times: 2)
    try world.add(
      [
        (appA, scenario.events(seed: scenario.seed + 2000, share: 0.3, endMs: world.nowMs)),
        (appB, scenario.events(seed: scenario.seed + 3000, share: 0.2, endMs: world.nowMs)),
      ], shuffleSeed: scenario.seed + 1)
    try world.retryFirstRequest()
    world.checkEveryReport("partly folded, then more events", queried, comparison)

    try world.foldAll()
    world.checkEveryReport("all folded", queried, comparison)

    comparison.finish()
  }

  @Test("isolation: another app's events, with the same updateIds, never reach an app's reports")
  func isolation() throws {
    let world = try ReferenceWorld(appIds: ["app-a", "app-b", "app-c"])
    let comparison = ReportComparison()
    let (appA, appB, appC) = (world.apps[0], world.apps[1], world.apps[2])
    let scenario = ReferenceScenario(seed: 5, installs: 300, updates: 6, days: 20)
    let simulation = EventSimulation(scenario.parameters(seed: scenario.seed, endMs: world.nowMs))
    try world.add(
      [(appA, handEvents(day: world.today - 3, simulation.updates)), (appB, simulation.events())],
      shuffleSeed: 5)
    let queried = QueriedIds(simulation)

    // App B's own figures are checked by the test above; here, A and C.
    world.checkEveryReport("before any fold", queried, comparison, exhaustive: true, apps: [0, 2])
    try world.foldAll()
    world.checkEveryReport("all folded", queried, comparison, exhaustive: true, apps: [0, 2])

    let range = DayRange.lastThirtyDays(nowMs: world.nowMs)
    for store in world.stores {
      let queries = store.queries
      #expect(try queries.updates(appNo: appA, range: range, test: .include).count == 3)
      #expect(try queries.updates(appNo: appC, range: range, test: .include) == [])
      #expect(
        try queries.grouped(
          appNo: appC, keys: [.updateId], granularity: .day, range: range, test: .include) == [])
      let detail = try queries.update(
        appNo: appC, updateId: simulation.updates[0].updateId, range: range, test: .include)
      #expect(detail.actions == Array(repeating: ActionCounts(), count: 4) && detail.days.isEmpty)
    }
    comparison.finish()
  }

  @Test("test events: left out by default, alone with only, counted once per install with include")
  func testFilter() throws {
    let world = try ReferenceWorld(appIds: ["app-a"])
    let day = world.today - 1
    let hour: Int64 = 3_600_000
    func at(_ hours: Int64) -> Int64 { day * 86_400_000 + hours * hour }
    // Install p has a real and a test impression, q only a test one; one
    // real impression has no install.
    let events = [
      Event(
        id: "p1", updateId: "u", action: .impression, appVersion: "1.0", installId: "p",
        timestampMs: at(10)),
      Event(
        id: "p2", updateId: "u", action: .impression, appVersion: "1.0", installId: "p",
        timestampMs: at(11), isTest: true),
      Event(
        id: "q1", updateId: "u", action: .impression, appVersion: "1.0", installId: "q",
        timestampMs: at(12), isTest: true),
      Event(
        id: "n1", updateId: "u", action: .impression, appVersion: "1.0", timestampMs: at(13)),
    ]
    try world.add([(world.apps[0], events)], shuffleSeed: 1)
    let range = DayRange(fromDay: day, toDay: day)
    let expected: [(TestFilter, events: Int, installs: Int)] = [
      (.exclude, 2, 1), (.only, 2, 2), (.include, 4, 2),
    ]
    for state in ["before any fold", "all folded"] {
      if state == "all folded" { try world.foldAll() }
      for (filter, eventCount, installCount) in expected {
        let scope = world.reference.scope(appNo: world.apps[0], range: range, test: filter)
        #expect(
          scope.update("u").actions[0] == ActionCounts(events: eventCount, installs: installCount))
        #expect(
          scope.adoption() == [
            AdoptionRow(day: day, appVersion: "1.0", installs: installCount, share: 1)
          ])
        for store in world.stores {
          let detail = try store.queries.update(
            appNo: world.apps[0], updateId: "u", range: range, test: filter)
          #expect(
            detail.actions[0] == ActionCounts(events: eventCount, installs: installCount),
            "\(state), \(store.name), test=\(filter)")
          let rows = try store.queries.grouped(
            appNo: world.apps[0], keys: [.action], granularity: .day, range: range, test: filter)
          #expect(
            rows == [GroupedRow(keys: ["impression"], events: eventCount, installs: installCount)],
            "\(state), \(store.name), test=\(filter)")
        }
      }
    }
    let comparison = ReportComparison()
    world.checkEveryReport(
      "all folded", QueriedIds(updateIds: ["u"], funnels: [("u", [nil])]), comparison,
      exhaustive: true)
    comparison.finish()
  }

  @Test("hours: an install's events folded apart, out of order, count once per hour and group")
  func hoursAcrossFolds() throws {
    let world = try ReferenceWorld(appIds: ["app-a"])
    let day = world.today - 1
    func event(
      _ installId: String?, _ action: Action, _ hours: Int64, _ minutes: Int64,
      os: String = "17.4", platform: Platform = .ios, isTest: Bool = false
    ) -> Event {
      Event(
        updateId: "U", action: action, appVersion: "2.0.0", installId: installId,
        timestampMs: day * 86_400_000 + hours * 3_600_000 + minutes * 60_000, osVersion: os,
        platform: platform, isTest: isTest)
    }
    // Folded first: p twice in hour 05, q on Android in hour 05, r late in
    // the day before.
    try world.add(
      [
        (
          world.apps[0],
          [
            event("p", .impression, 5, 10), event("p", .impression, 5, 20),
            event("q", .impression, 5, 30, os: "14", platform: .android),
            event("r", .later, -1, 59),
          ]
        )
      ], shuffleSeed: 3)
    try world.foldAll()
    // Arriving after that fold: p earlier in the day (hour 03) and its
    // download in hour 05, p's test event, and an event without install.
    try world.add(
      [
        (
          world.apps[0],
          [
            event("p", .impression, 3, 0), event("p", .download, 5, 40),
            event("p", .impression, 5, 50, isTest: true), event(nil, .impression, 5, 55),
          ]
        )
      ], shuffleSeed: 4)
    let date = Timestamp.formatDate(dayNumber: day)
    let expected: [(TestFilter, [GroupKey], [GroupedRow])] = [
      (
        .exclude, [.date, .osVersion],
        [
          GroupedRow(keys: [date + "T03", "17.4"], events: 1, installs: 1),
          GroupedRow(keys: [date + "T05", "14"], events: 1, installs: 1),
          GroupedRow(keys: [date + "T05", "17.4"], events: 4, installs: 1),
        ]
      ),
      (
        .include, [.action, .date],
        [
          GroupedRow(keys: ["download", date + "T05"], events: 1, installs: 1),
          GroupedRow(keys: ["impression", date + "T03"], events: 1, installs: 1),
          GroupedRow(keys: ["impression", date + "T05"], events: 5, installs: 2),
        ]
      ),
      (.only, [.platform], [GroupedRow(keys: ["ios"], events: 1, installs: 1)]),
    ]
    let range = DayRange(fromDay: day, toDay: day)
    for state in ["tail unfolded", "all folded"] {
      if state == "all folded" { try world.foldAll() }
      for (filter, keys, rows) in expected {
        let scope = world.reference.scope(appNo: world.apps[0], range: range, test: filter)
        #expect(scope.grouped(keys, .hour) == rows, "reference, test=\(filter)")
        for store in world.stores {
          #expect(
            try store.queries.grouped(
              appNo: world.apps[0], keys: keys, granularity: .hour, range: range, test: filter)
              == rows, "\(state), \(store.name), test=\(filter)")
        }
      }
    }
  }

  @Test("funnel and adoption: figures worked out by hand, for the reference and the store")
  func handWorkedFunnel() throws {
    let world = try ReferenceWorld(appIds: ["app-a"])
    let day = world.today - 2
    func at(_ minutes: Int64) -> Int64 { day * 86_400_000 + minutes * 60_000 }
    func event(
      _ installId: String, _ action: Action, _ version: String, _ minutes: Int64,
      update: String = "U"
    ) -> Event {
      Event(
        updateId: update, action: action, appVersion: version, installId: installId,
        timestampMs: at(minutes))
    }
    let events = [
      // a: shown, downloads, seen on 2.1.0 three hours after the impression.
      event("a", .impression, "2.0.0", 0), event("a", .download, "2.0.0", 60),
      event("a", .impression, "2.1.0", 180, update: "V"),
      // b: shown twice (the first counts), seen on 2.0.0 again, then 2.1.0.
      event("b", .impression, "2.0.0", 120), event("b", .later, "2.0.0", 150),
      event("b", .impression, "2.0.0", 300), event("b", .download, "2.0.0", 360),
      event("b", .impression, "2.0.0", 420, update: "V"),
      event("b", .impression, "2.1.0", 540, update: "V"),
      // c: downloads, never seen again.
      event("c", .impression, "2.0.0", 0), event("c", .download, "2.0.0", 30),
      // d: its download came before its impression.
      event("d", .download, "2.0.0", 0), event("d", .impression, "2.0.0", 60),
      // e: already on 2.1.0 when shown; seen on 2.2.0 later.
      event("e", .impression, "2.1.0", 60), event("e", .download, "2.1.0", 120),
      event("e", .ignore, "2.2.0", 240, update: "V"),
      // f: 2.10.0 is above 2.9.0 in version order (not in text order).
      event("f", .impression, "2.9.0", 0), event("f", .download, "2.9.0", 10),
      event("f", .later, "2.10.0", 600, update: "V"),
      // g: downloads, seen on 2.1.0 and only later on 2.2.0: with target
      // 2.2.0 it upgrades through the version between.
      event("g", .impression, "2.0.0", 0), event("g", .download, "2.0.0", 10),
      event("g", .later, "2.1.0", 200, update: "V"),
      event("g", .ignore, "2.2.0", 500, update: "V"),
    ]
    try world.add([(world.apps[0], events)], shuffleSeed: 2)
    let range = DayRange(fromDay: day, toDay: day)
    let scope = world.reference.scope(appNo: world.apps[0], range: range, test: .exclude)
    let expected: [(target: String?, FunnelResult)] = [
      (
        nil,
        FunnelResult(impressions: 7, downloads: 6, upgraded: 5, medianHoursToUpgrade: 200.0 / 60)
      ),
      (
        "2.2.0",
        FunnelResult(impressions: 7, downloads: 6, upgraded: 3, medianHoursToUpgrade: 500.0 / 60)
      ),
      ("3.0", FunnelResult(impressions: 7, downloads: 6, upgraded: 0, medianHoursToUpgrade: nil)),
    ]
    let expectedAdoption = [
      AdoptionRow(day: day, appVersion: "2.0.0", installs: 5, share: 5 / 7),
      AdoptionRow(day: day, appVersion: "2.1.0", installs: 4, share: 4 / 7),
      AdoptionRow(day: day, appVersion: "2.2.0", installs: 2, share: 2 / 7),
      AdoptionRow(day: day, appVersion: "2.9.0", installs: 1, share: 1 / 7),
      AdoptionRow(day: day, appVersion: "2.10.0", installs: 1, share: 1 / 7),
    ]
    for (target, result) in expected {
      #expect(
        scope.funnel("U", targetVersion: target) == result, "reference, target \(target ?? "nil")")
    }
    #expect(scope.adoption() == expectedAdoption, "reference")

    let comparison = ReportComparison()
    for state in ["before any fold", "all folded"] {
      if state == "all folded" { try world.foldAll() }
      for store in world.stores {
        for (target, result) in expected {
          comparison.compare(
            "funnel", store, "\(state), funnel U, target \(target ?? "nil")", expected: [result]
          ) {
            [
              try store.queries.funnel(
                appNo: world.apps[0], updateId: "U", range: range, test: .exclude,
                targetVersion: target)
            ]
          }
        }
        comparison.compare("adoption", store, state, expected: expectedAdoption) {
          try store.queries.adoption(appNo: world.apps[0], range: range, test: .exclude)
        }
      }
    }
    comparison.finish()
  }
}

// MARK: - Scenario

/// The size of the simulated traffic of one app.
struct ReferenceScenario: Sendable, CustomTestStringConvertible {
  let seed: UInt64
  let installs: Int
  let updates: Int
  let days: Int

  var testDescription: String {
    "seed \(seed), \(installs) installs, \(updates) updates, \(days) days"
  }

  /// The scenario's simulation with another seed and a share of its installs.
  func parameters(seed: UInt64, share: Double = 1, endMs: Int64) -> EventSimulation.Parameters {
    var parameters = EventSimulation.Parameters()
    parameters.seed = seed
    parameters.installs = max(1, Int(Double(installs) * share))
    parameters.updates = updates
    parameters.days = days
    parameters.endMs = endMs
    parameters.testShare = 0.05
    return parameters
  }

  func events(seed: UInt64, share: Double, endMs: Int64) -> [Event] {
    EventSimulation(parameters(seed: seed, share: share, endMs: endMs)).events()
  }
}

extension EventSimulation {
  /// Every event, in generation order.
  func events() -> [Event] {
    var events: [Event] = []
    generate { events.append($0) }
    return events
  }
}

/// The updates each check asks about: two simulated ones, an integer-like
/// one that only events without an install use, and one that never had any;
/// the funnel of the simulated ones with and without their target version.
struct QueriedIds {
  let updateIds: [String]
  /// The updates whose funnel is asked for, with the target versions to try.
  let funnels: [(updateId: String, targets: [String?])]

  init(updateIds: [String], funnels: [(updateId: String, targets: [String?])]) {
    self.updateIds = updateIds
    self.funnels = funnels
  }

  init(_ simulation: EventSimulation) {
    let updates = simulation.updates
    let middle = updates[updates.count / 2]
    updateIds = [updates[0].updateId, middle.updateId, "99", "absent"]
    funnels = [updates[0], middle].map { ($0.updateId, [nil, $0.version]) } + [("99", [nil])]
  }
}

/// Events written by hand for `day` (a few days before today), for what the
/// simulation never produces: events without an install, a platform or an
/// OS version; events on both sides of midnight; an integer-like updateId
/// ("99") that text order puts after the generated ones; an OS version that
/// text order would misplace ("17.10"); an install with both real and test
/// events, one of which is the download that its later upgrade follows.
func handEvents(day: Int64, _ updates: [EventSimulation.Update]) -> [Event] {
  let midnight = day * 86_400_000
  let hour: Int64 = 3_600_000
  let first = updates[0]
  let second = updates[min(1, updates.count - 1)]
  return [
    Event(
      id: "hand-1", updateId: first.updateId, action: .impression, appVersion: "2.0.0",
      timestampMs: midnight),
    Event(
      updateId: first.updateId, action: .download, appVersion: "2.0.0", timestampMs: midnight - 1,
      osVersion: "13", platform: .android),
    Event(
      id: "hand-3", updateId: "99", action: .impression, appVersion: "2.1.0",
      timestampMs: midnight + 5 * hour, osVersion: "17.10", platform: .ios),
    Event(
      id: "hand-4", updateId: "99", action: .later, appVersion: "2.1.0",
      timestampMs: midnight + 5 * hour + 60_000, osVersion: "17.10"),
    Event(
      id: "hand-5", updateId: first.updateId, action: .impression, appVersion: "2.0.0",
      installId: "hand-mixed", timestampMs: midnight + 8 * hour, osVersion: "17.10",
      platform: .ios),
    Event(
      id: "hand-6", updateId: first.updateId, action: .impression, appVersion: "2.0.0",
      installId: "hand-mixed", timestampMs: midnight + 9 * hour, osVersion: "17.10",
      platform: .ios, isTest: true),
    Event(
      id: "hand-7", updateId: first.updateId, action: .download, appVersion: "2.0.0",
      installId: "hand-mixed", timestampMs: midnight + 10 * hour, osVersion: "17.10",
      platform: .ios, isTest: true),
    Event(
      id: "hand-8", updateId: second.updateId, action: .impression, appVersion: first.version,
      installId: "hand-mixed", timestampMs: midnight + 30 * hour, osVersion: "17.10",
      platform: .ios, previousAppVersion: "2.0.0"),
    Event(
      updateId: first.updateId, action: .ignore, appVersion: "2.0.0",
      timestampMs: midnight + 24 * hour - 1, platform: .other),
  ]
}

// MARK: - Stores under test

/// One database under test: a writer connection that inserts and folds, and
/// a separate reader connection for the reports, as the daemon has them.
final class StoreUnderTest {
  let name: String
  let apps: [Int64]
  var inserter: EventInserter { connections!.inserter }
  var folder: RollupFolder { connections!.folder }
  var queries: ReportQueries { connections!.queries }
  /// Events accepted, and events the folds said they folded.
  private(set) var stored = 0
  private(set) var folded = 0
  private(set) var firstRequest: [EventBatch] = []
  private let scratch: ScratchDirectory
  /// Nil only while `restart` has closed them and not opened new ones.
  private var connections: Connections?

  /// The connections and the objects on them, which a restart replaces
  /// together: the inserter's duplicate index and the folder's bucket
  /// membership live in memory, beside their connection.
  private struct Connections {
    let writer: Database
    let inserter: EventInserter
    let folder: RollupFolder
    let queries: ReportQueries

    /// Opens the writer and reader on the database (creating and migrating
    /// it the first time); the rollups file beside it is attached to both.
    init(_ scratch: ScratchDirectory) throws {
      writer = try scratch.openDatabase()
      inserter = EventInserter(database: writer)
      folder = RollupFolder(database: writer)
      queries = ReportQueries(database: try scratch.openDatabase())
    }
  }

  init(name: String, appIds: [String]) throws {
    self.name = name
    scratch = try ScratchDirectory()
    let connections = try Connections(scratch)
    self.connections = connections
    apps = try appIds.map { try connections.writer.addApp($0) }
  }

  deinit { scratch.remove() }

  /// Inserts each element of `calls` with one `insert`; every event is new.
  func insert(_ calls: [[EventBatch]]) throws {
    if firstRequest.isEmpty, let first = calls.first { firstRequest = first }
    for batches in calls {
      try insert(batches, expecting: batches.map { InsertOutcome(accepted: $0.events.count) })
    }
  }

  /// Inserts `batches` with one `insert`, where events may repeat ones
  /// stored before (same `id`): `expected` says how each batch must fare.
  func insert(_ batches: [EventBatch], expecting expected: [InsertOutcome], _ context: String = "")
    throws
  {
    let outcomes = try inserter.insert(batches)
    #expect(outcomes == expected, "\(name)\(context.isEmpty ? "" : ", " + context)")
    stored += outcomes.map(\.accepted).reduce(0, +)
  }

  /// Closes every connection, as a stopped daemon does, then opens new
  /// ones on the same files, as a started daemon does: whatever the
  /// inserter and the folder kept in memory is gone, and only the files
  /// say what was stored and folded.
  func restart() throws {
    connections = nil
    connections = try Connections(scratch)
  }

  /// A client retrying its first request, which it had no answer to: the
  /// same events with the same ids are all duplicates.
  func retryFirstRequest() throws {
    let retry = firstRequest.map { batch in
      EventBatch(
        appNo: batch.appNo, events: batch.events.filter { $0.id != nil },
        receivedAtMs: batch.receivedAtMs)
    }
    let outcomes = try inserter.insert(retry)
    #expect(
      outcomes == retry.map { InsertOutcome(duplicates: $0.events.count) },
      "\(name): retried request")
  }

  func foldSome(maxEvents: Int, times: Int) throws {
    for _ in 0..<times {
      let count = try folder.fold(maxEvents: maxEvents)
      #expect((0...maxEvents).contains(count), "\(name): fold(maxEvents: \(maxEvents))")
      folded += count
    }
  }

  /// Folds until the rollups are up to date; then every stored event has
  /// been folded exactly once.
  func foldAll() throws {
    var calls = 0
    while try folder.fold(maxEvents: 1000).addedTo(&folded) > 0 {
      calls += 1
      guard calls <= stored / 1000 + 10 else {
        Issue.record("\(name): fold still folding after \(calls) calls of 1000")
        return
      }
    }
    #expect(folded == stored, "\(name): events folded in all, against events stored")
  }
}

extension Int {
  /// Adds itself to `total` and returns itself.
  fileprivate func addedTo(_ total: inout Int) -> Int {
    total += self
    return self
  }
}

/// Two databases fed the same events, one in generation order and one
/// shuffled, and the reference fed them too.
final class ReferenceWorld {
  /// The simulations end now, as live traffic does.
  let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
  var today: Int64 { Timestamp.dayNumber(ms: nowMs) }
  let inOrder: StoreUnderTest
  let shuffled: StoreUnderTest
  var stores: [StoreUnderTest] { [inOrder, shuffled] }
  let apps: [Int64]
  private(set) var reference = ReportReference()
  private var firstDay: Int64

  static let eventsPerRequest = 500

  init(appIds: [String]) throws {
    inOrder = try StoreUnderTest(name: "in-order db", appIds: appIds)
    shuffled = try StoreUnderTest(name: "shuffled db", appIds: appIds)
    precondition(inOrder.apps == shuffled.apps, "both databases number the apps alike")
    apps = inOrder.apps
    firstDay = Timestamp.dayNumber(ms: nowMs)
  }

  /// Stores each app's events: in the in-order database, as requests of up
  /// to 500 events per app in generation order, the apps' requests taking
  /// turns; in the other, the same events in a seeded random order, 500 to a
  /// request.
  func add(_ streams: [(appNo: Int64, events: [Event])], shuffleSeed: UInt64) throws {
    let size = Self.eventsPerRequest
    let perApp = streams.map { stream in
      stride(from: 0, to: stream.events.count, by: size).map { start in
        EventBatch(
          appNo: stream.appNo,
          events: Array(stream.events[start..<min(start + size, stream.events.count)]),
          receivedAtMs: nowMs)
      }
    }
    let turns = perApp.map(\.count).max() ?? 0
    try inOrder.insert(
      (0..<turns).map { turn in perApp.compactMap { turn < $0.count ? $0[turn] : nil } })

    var generator = SeededGenerator(seed: shuffleSeed)
    let all = streams.flatMap { stream in stream.events.map { (appNo: stream.appNo, event: $0) } }
      .shuffled(using: &generator)
    try shuffled.insert(
      stride(from: 0, to: all.count, by: size).map { start in
        let request = all[start..<min(start + size, all.count)]
        return apps.compactMap { app in
          let events = request.filter { $0.appNo == app }.map(\.event)
          return events.isEmpty ? nil : EventBatch(appNo: app, events: events, receivedAtMs: nowMs)
        }
      })
    reference.add(all)
    if let earliest = all.map(\.event.timestampMs).min() {
      firstDay = min(firstDay, Timestamp.dayNumber(ms: earliest))
    }
  }

  /// Retries each database's first request.
  func retryFirstRequest() throws {
    for store in stores { try store.retryFirstRequest() }
  }

  func foldSome(maxEvents: Int, times: Int) throws {
    for store in stores { try store.foldSome(maxEvents: maxEvents, times: times) }
  }

  func foldAll() throws {
    for store in stores { try store.foldAll() }
  }

  /// The ranges every report is asked for.
  var ranges: [(name: String, range: DayRange)] {
    [
      ("the default range", DayRange.lastThirtyDays(nowMs: nowMs)),
      ("one day", DayRange(fromDay: today - 3, toDay: today - 3)),
      ("a range cutting through the data", DayRange(fromDay: firstDay + 4, toDay: today - 2)),
      ("a range without events", DayRange(fromDay: firstDay - 60, toDay: firstDay - 31)),
    ]
  }

  /// The grouped reports asked for: key lists in order, and granularity.
  static let groupings: [([GroupKey], Granularity)] = [
    (GroupKey.defaultGrouping, .day), ([.updateId, .action], .day), ([.action], .day),
    ([.date], .day), ([.updateId], .day), ([.action, .date], .day), ([.appVersion], .day),
    ([.platform, .osVersion], .day), ([.date, .appVersion, .action], .day),
    ([.date, .appVersion], .day), ([.appVersion, .date], .day),
    (GroupKey.defaultGrouping, .hour), ([.date], .hour),
    ([.date, .osVersion], .hour), ([.platform, .date, .action], .hour),
    ([.osVersion, .appVersion], .hour), ([.date, .platform], .day),
    ([.updateId, .appVersion, .platform, .osVersion, .action], .day),
    ([.action, .osVersion, .date, .updateId, .platform, .appVersion], .hour),
  ]

  /// Offsets which test filter each range is checked under, so that
  /// scenarios differ in what each state checks.
  var rotation = 0
  private var checks = 0

  /// The ranges and test filters a check asks the reports of app number
  /// `index` for: exhaustive, every range under every filter; otherwise,
  /// to keep the suite fast, the first app gets every range under one
  /// filter, rotating from check to check so that three checks in a row
  /// cover every pair, and the other apps the default range under one.
  private func scopes(appIndex: Int, exhaustive: Bool) -> [(
    name: String, range: DayRange, test: TestFilter
  )] {
    let filters = TestFilter.allCases
    if exhaustive {
      return ranges.flatMap { named in filters.map { (named.name, named.range, $0) } }
    }
    let turn = checks + rotation
    if appIndex > 0 { return [(ranges[0].name, ranges[0].range, filters[turn % 3])] }
    return ranges.enumerated().map { index, named in
      (named.name, named.range, filters[(index + turn) % 3])
    }
  }

  /// Compares every report of every app, for the ranges and test filters
  /// `scopes` picks, in both databases, with the reference: the same events
  /// must give the same reports whatever order they arrived in.
  func checkEveryReport(
    _ state: String, _ queried: QueriedIds, _ comparison: ReportComparison,
    exhaustive: Bool = false, apps appIndices: [Int]? = nil
  ) {
    defer { checks += 1 }
    for (index, appNo) in apps.enumerated() where appIndices?.contains(index) ?? true {
      let app = "app \(["A", "B", "C"][index])"
      for (rangeName, range, test) in scopes(appIndex: index, exhaustive: exhaustive) {
        let expected = ExpectedReports(
          reference, appNo: appNo, range: range, test: test, queried: queried)
        let context = "\(state), \(app), \(rangeName) \(range.text), test=\(test.rawValue)"
        for store in stores { expected.check(store, context, comparison) }
      }
    }
  }
}

// MARK: - Comparing rows

/// A report row that can say whether it matches another (doubles within
/// 1e-9) and describe itself in one line.
protocol ReportRow {
  func matches(_ other: Self) -> Bool
  var line: String { get }
}

extension ReportRow where Self: Equatable {
  func matches(_ other: Self) -> Bool { self == other }
}

/// Doubles in reports: equal within 1e-9, or both missing.
func nearlyEqual(_ lhs: Double?, _ rhs: Double?) -> Bool {
  switch (lhs, rhs) {
  case (nil, nil): true
  case (let left?, let right?): abs(left - right) <= 1e-9
  default: false
  }
}

extension UpdateSummary: ReportRow {
  var line: String {
    "\(updateId) first=\(Timestamp.formatRFC3339(firstSeenMs)) last=\(Timestamp.formatRFC3339(lastSeenMs)) impression/download/later/ignore=\(events.map(String.init).joined(separator: "/"))"
  }
}

extension GroupedRow: ReportRow {
  var line: String {
    "[\(keys.map { $0 ?? "nil" }.joined(separator: ", "))] events=\(events) installs=\(installs)"
  }
}

extension AdoptionRow: ReportRow {
  func matches(_ other: AdoptionRow) -> Bool {
    day == other.day && appVersion == other.appVersion && installs == other.installs
      && nearlyEqual(share, other.share)
  }

  var line: String {
    "\(Timestamp.formatDate(dayNumber: day)) \(appVersion) installs=\(installs) share=\(share)"
  }
}

extension FunnelResult: ReportRow {
  func matches(_ other: FunnelResult) -> Bool {
    impressions == other.impressions && downloads == other.downloads && upgraded == other.upgraded
      && nearlyEqual(medianHoursToUpgrade, other.medianHoursToUpgrade)
  }

  var line: String {
    "impressions=\(impressions) downloads=\(downloads) upgraded=\(upgraded) medianHoursToUpgrade=\(medianHoursToUpgrade.map { "\($0)" } ?? "nil")"
  }
}

extension String: ReportRow {
  var line: String { self }
}

extension UpdateDetail {
  /// One line per action, one for the rates, one per day: compared as rows,
  /// so a difference names the part that differs.
  var lines: [String] {
    let actionLines = Action.allCases.map { action in
      "\(updateId) \(action.name): events=\(actions[action.rawValue].events) installs=\(actions[action.rawValue].installs)"
    }
    let rates = [Action.download, .later, .ignore].map { action in
      "\(action.name)Rate=\(rate(action).map { "\($0)" } ?? "nil")"
    }
    let dayLines = days.map { day in
      "\(Timestamp.formatDate(dayNumber: day.day)) impression/download/later/ignore=\(day.events.map(String.init).joined(separator: "/"))"
    }
    return actionLines + [rates.joined(separator: " ")] + dayLines
  }
}

extension DayRange {
  var text: String {
    "\(Timestamp.formatDate(dayNumber: fromDay))..\(Timestamp.formatDate(dayNumber: toDay))"
  }
}

/// The first row where `actual` and `expected` differ, described; nil when
/// they are equal.
func firstDifference<Row: ReportRow>(_ actual: [Row], _ expected: [Row]) -> String? {
  for index in 0..<max(actual.count, expected.count) {
    let left = index < actual.count ? actual[index] : nil
    let right = index < expected.count ? expected[index] : nil
    if let left, let right, left.matches(right) { continue }
    return """
      \(expected.count) rows expected, \(actual.count) actual; first difference at row \(index):
        expected: \(right?.line ?? "no row")
        actual:   \(left?.line ?? "no row")
      """
  }
  return nil
}

/// Compares reports and records failures, a few per report and database, so
/// that one bug does not bury the others.
final class ReportComparison {
  static let failuresShownPerReport = 5
  private var failures: [String: Int] = [:]

  func compare<Row: ReportRow>(
    _ report: String, _ store: StoreUnderTest, _ context: String, expected: [Row],
    sourceLocation: SourceLocation = #_sourceLocation, _ actual: () throws -> [Row]
  ) {
    let bucket = "\(report) on the \(store.name)"
    let difference: String?
    do {
      difference = firstDifference(try actual(), expected)
    } catch {
      difference = "threw \(error)"
    }
    guard difference != nil else { return }
    failures[bucket, default: 0] += 1
    guard failures[bucket]! <= Self.failuresShownPerReport else { return }
    #expect(
      difference == nil, "\(report) on the \(store.name), \(context)",
      sourceLocation: sourceLocation)
  }

  /// Records how many failures were not shown.
  func finish(sourceLocation: SourceLocation = #_sourceLocation) {
    for (bucket, count) in failures.sorted(by: { $0.key < $1.key })
    where count > Self.failuresShownPerReport {
      Issue.record(
        "\(bucket): \(count) reports differ from the reference in all (\(Self.failuresShownPerReport) shown)",
        sourceLocation: sourceLocation)
    }
  }
}
