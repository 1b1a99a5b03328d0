import Testing
import UptakeCore
import UptakeDataGen

@testable import UptakeStore

/// One database fed `ArrivalTraffic` in one arrival order, the way a
/// daemon meets it: requests of random sizes, folds of random sizes and
/// restarts at random points between them. Every report is checked against
/// the reference at one of those points, over the events arrived so far
/// and in one range and test filter picked at random (every scope at every
/// point would cost more than it finds), and at the end in every scope,
/// before and after folding everything.
struct ArrivalRun {
  let traffic: ArrivalTraffic
  /// Named for the order and the seed, which every failure message names.
  let store: StoreUnderTest
  /// What the order picked at random, for the failure messages.
  let description: String
  private let indices: [Int]
  private var generator: SeededGenerator

  /// The run of `order` on `store`. Everything random in it comes from
  /// `seed` and the order, so a seed replays every run, and a new order
  /// leaves the other runs as they were.
  init(
    _ order: ArrivalOrder, of traffic: ArrivalTraffic, on store: StoreUnderTest, seed: UInt64
  ) {
    (self.traffic, self.store) = (traffic, store)
    generator = SeededGenerator(seed: seed &+ UInt64(ArrivalOrder.allCases.firstIndex(of: order)!))
    (description, indices) = order.arrivals(
      of: traffic.events, nowMs: traffic.nowMs, &generator)
  }

  /// Feeds every event and checks at the point the run picks; the final
  /// checks compare with `everyEvent`, the reports over all the traffic,
  /// worked out once for every run.
  mutating func run(everyEvent: [ExpectedReports], _ comparison: ReportComparison) throws {
    let requests = Self.requests(indices, &generator)
    let checkpoint = Int.random(in: 0..<max(1, requests.count - 1), using: &generator)
    let restartAt = Int.random(in: 0..<max(1, requests.count - 1), using: &generator)
    var arrived = Set<Int>()
    var restarts = 0
    var state: String {
      "\(store.stored) events stored, \(store.folded) folded, \(restarts) restarts"
    }
    for (number, request) in requests.enumerated() {
      let expected = request.map { batch in
        batch.reduce(into: InsertOutcome()) { outcome, index in
          if arrived.insert(index).inserted {
            outcome.accepted += 1
          } else {
            outcome.duplicates += 1
          }
        }
      }
      try store.insert(
        request.map { batch in
          EventBatch(
            appNo: store.apps[0], events: batch.map { traffic.events[$0] },
            receivedAtMs: traffic.nowMs)
        }, expecting: expected, "request \(number + 1) of \(requests.count)")
      guard number < requests.count - 1 else { break }
      if generator.chance(0.3) {
        try store.foldSome(maxEvents: Self.foldSize(&generator), times: 1)
      }
      if number == restartAt || generator.chance(0.05) {
        try store.restart()
        restarts += 1
      }
      if number == checkpoint {
        var reference = ReportReference()
        reference.add(arrived.sorted().map { (store.apps[0], traffic.events[$0]) })
        let named = traffic.ranges.randomElement(using: &generator)!
        let test = TestFilter.allCases.randomElement(using: &generator)!
        check(
          [
            ExpectedReports(
              reference, appNo: store.apps[0], range: named.range, test: test,
              queried: traffic.queried)
          ], "after request \(number + 1) of \(requests.count), \(state)", comparison)
      }
    }
    check(everyEvent, "every event arrived, \(state)", comparison)
    try store.foldAll()
    if generator.chance(0.5) {
      try store.restart()
      restarts += 1
    }
    check(everyEvent, "every event arrived and folded, \(state)", comparison)
  }

  /// Every report the runs compare, for each range of `traffic` and each
  /// test filter, as `reference` has them.
  static func expectations(
    _ reference: ReportReference, appNo: Int64, _ traffic: ArrivalTraffic
  ) -> [ExpectedReports] {
    traffic.ranges.flatMap { named in
      TestFilter.allCases.map { test in
        ExpectedReports(
          reference, appNo: appNo, range: named.range, test: test, queried: traffic.queried)
      }
    }
  }

  private func check(
    _ expectations: [ExpectedReports], _ state: String, _ comparison: ReportComparison
  ) {
    for expected in expectations.map({ $0.forApp(store.apps[0]) }) {
      let rangeName = traffic.ranges.first { $0.range == expected.range }!.name
      expected.check(
        store,
        "\(state), \(rangeName) \(expected.range.text), test=\(expected.test.rawValue)",
        comparison)
    }
  }

  /// The indices cut into requests (one `insert` each) of one to three
  /// batches, each of 1 to `largest` events: in some runs up to a thousand,
  /// in others a few dozen, a client that sends as soon as it can.
  private static func requests(_ indices: [Int], _ generator: inout SeededGenerator) -> [[[Int]]] {
    let largest = [1000, 200, 30].randomElement(using: &generator)!
    var requests: [[[Int]]] = []
    var start = 0
    while start < indices.count {
      var request: [[Int]] = []
      for _ in 0..<(generator.chance(0.2) ? Int.random(in: 2...3, using: &generator) : 1)
      where start < indices.count {
        let end = min(indices.count, start + Int.random(in: 1...largest, using: &generator))
        request.append(Array(indices[start..<end]))
        start = end
      }
      requests.append(request)
    }
    return requests
  }

  /// How many events a fold may take: a handful, a few hundred, or more
  /// than a request brings.
  private static func foldSize(_ generator: inout SeededGenerator) -> Int {
    Int.random(in: 1...[10, 300, 3000].randomElement(using: &generator)!, using: &generator)
  }
}
