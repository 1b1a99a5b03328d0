import Testing
import UptakeCore
import UptakeDataGen

@testable import UptakeStore

/// A few hand-written events, each with a label, stored in many orders:
/// every order of the sends when there are at most five, otherwise time
/// order, reverse time order and a few shuffles. One event arrives per
/// request, with folds between the arrivals by a pattern that changes from
/// order to order (folding each arrival; folding part of it, with a
/// restart half-way; folding nothing). After the last arrival, and again
/// once everything is folded, every report must equal the reference's, and
/// the funnels the figures worked out by hand.
///
/// Each order is an app of its own, in a database per fold pattern: an
/// app's reports read its own events only, and a database per order spent
/// most of the suite's time creating databases and syncing one-event
/// commits.
struct HandWrittenArrivals {
  let events: [(label: String, event: Event)]
  /// Indices into `events` in the order the client sent them; an index
  /// again is the same event sent again, a duplicate to count once.
  let sends: [Int]
  let range: DayRange
  /// The funnels worked out by hand.
  let funnels: [(updateId: String, target: String?, test: TestFilter, result: FunnelResult)]

  init(
    _ events: [(String, Event)], resending: [Int] = [], range: DayRange,
    funnels: [(updateId: String, target: String?, test: TestFilter, result: FunnelResult)]
  ) {
    self.events = events
    sends = Array(events.indices) + resending
    (self.range, self.funnels) = (range, funnels)
  }

  /// The grouped reports asked for: four groupings that count installs by
  /// version and by hour. These events are here for the funnel, the
  /// property test asks for every grouping, and every grouping in every
  /// order here would cost more than the whole property test.
  static let groupings: [([GroupKey], Granularity)] = [
    (GroupKey.defaultGrouping, .day), ([.appVersion], .day),
    ([.date, .appVersion, .action], .hour),
    ([.action, .osVersion, .date, .updateId, .platform, .appVersion], .hour),
  ]

  /// The reports asked for: every update with events and one without,
  /// and the funnels with every target the figures name.
  private var queried: QueriedIds {
    var updateIds: [String] = []
    for (_, event) in events where !updateIds.contains(event.updateId) {
      updateIds.append(event.updateId)
    }
    return QueriedIds(
      updateIds: updateIds + ["absent"],
      funnels: updateIds.map { updateId in
        var targets: [String?] = [nil]
        for funnel in funnels where funnel.updateId == updateId && !targets.contains(funnel.target)
        {
          targets.append(funnel.target)
        }
        return (updateId, targets)
      })
  }

  /// The orders the sends arrive in.
  var orders: [[Int]] {
    guard sends.count > 5 else { return Self.permutations(sends) }
    let inTimeOrder = sends.indices.sorted {
      (events[sends[$0]].event.timestampMs, $0) < (events[sends[$1]].event.timestampMs, $1)
    }.map { sends[$0] }
    var generator = SeededGenerator(seed: 7)
    return [inTimeOrder, inTimeOrder.reversed()]
      + (0..<4).map { _ in sends.shuffled(using: &generator) }
  }

  /// Every order of `elements`, each once even where elements repeat.
  static func permutations(_ elements: [Int]) -> [[Int]] {
    guard elements.count > 1 else { return [elements] }
    var seen = Set<Int>()
    return elements.indices.flatMap { index -> [[Int]] in
      guard seen.insert(elements[index]).inserted else { return [] }
      var rest = elements
      let first = rest.remove(at: index)
      return permutations(rest).map { [first] + $0 }
    }
  }

  /// Checks the hand-worked figures against the reference, then stores
  /// the events in every order and checks the store.
  func check(_ sourceLocation: SourceLocation = #_sourceLocation) throws {
    var reference = ReportReference()
    let referenceApp: Int64 = 0
    reference.add(events.map { (referenceApp, $0.event) })
    for funnel in funnels {
      #expect(
        reference.scope(appNo: referenceApp, range: range, test: funnel.test)
          .funnel(funnel.updateId, targetVersion: funnel.target) == funnel.result,
        "reference, funnel \(funnel.updateId) target=\(funnel.target ?? "nil") test=\(funnel.test)",
        sourceLocation: sourceLocation)
    }
    let expected = TestFilter.allCases.map { test in
      ExpectedReports(
        reference, appNo: referenceApp, range: range, test: test, queried: queried,
        groupings: Self.groupings)
    }
    let comparison = ReportComparison()
    let orders = self.orders
    let patterns = FoldPattern.allCases
    for (patternIndex, pattern) in patterns.enumerated() {
      let fed = orders.indices.filter { $0 % patterns.count == patternIndex }.map { orders[$0] }
      guard !fed.isEmpty else { continue }
      let store = try StoreUnderTest(
        name: "database where \(pattern)", appIds: fed.indices.map { "order-\($0)" })
      var arrived = Array(repeating: Set<Int>(), count: fed.count)
      for step in sends.indices {
        let outcomes = fed.indices.map { app in
          arrived[app].insert(fed[app][step]).inserted
            ? InsertOutcome(accepted: 1) : InsertOutcome(duplicates: 1)
        }
        try store.insert(
          zip(store.apps, fed).map { appNo, order in
            EventBatch(appNo: appNo, events: [events[order[step]].event], receivedAtMs: range.endMs)
          }, expecting: outcomes, "arrival \(step + 1)")
        try pattern.afterArrival(step, of: sends.count, store)
      }
      for state in ["every event arrived", "all folded"] {
        if state == "all folded" { try store.foldAll() }
        for (appNo, order) in zip(store.apps, fed) {
          let context = "fed \(order.map { events[$0].label }.joined(separator: " ")), \(state)"
          for reports in expected {
            reports.forApp(appNo).check(
              store, "\(context), test=\(reports.test)", comparison, sourceLocation: sourceLocation)
          }
          for funnel in funnels {
            comparison.compare(
              "funnel by hand", store,
              "\(context), funnel \(funnel.updateId) target=\(funnel.target ?? "nil") test=\(funnel.test)",
              expected: [funnel.result], sourceLocation: sourceLocation
            ) {
              [
                try store.queries.funnel(
                  appNo: appNo, updateId: funnel.updateId, range: range, test: funnel.test,
                  targetVersion: funnel.target)
              ]
            }
          }
        }
      }
    }
    comparison.finish(sourceLocation: sourceLocation)
  }

  /// What happens between arrivals.
  enum FoldPattern: CaseIterable, CustomStringConvertible {
    /// Everything folded as soon as it arrives: each event meets the
    /// rollups of those before it.
    case foldEachArrival
    /// Half of each arrival's events folded (one per app for half the
    /// apps), so the tail lags further behind at each arrival, and a
    /// restart half-way.
    case foldHalfRestartHalfway
    /// Nothing folded until the end: the reports read the tail alone.
    case foldNothing

    var description: String {
      switch self {
      case .foldEachArrival: "each arrival is folded"
      case .foldHalfRestartHalfway: "half of each arrival is folded, with a restart half-way"
      case .foldNothing: "nothing is folded until the end"
      }
    }

    func afterArrival(_ step: Int, of count: Int, _ store: StoreUnderTest) throws {
      switch self {
      case .foldEachArrival:
        try store.foldAll()
      case .foldHalfRestartHalfway:
        try store.foldSome(maxEvents: max(1, store.apps.count / 2), times: 1)
        if step == count / 2 { try store.restart() }
      case .foldNothing:
        break
      }
    }
  }
}
