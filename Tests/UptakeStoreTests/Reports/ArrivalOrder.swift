import Testing
import UptakeCore
import UptakeDataGen

/// An order in which the same events can reach the store. Clients send
/// what they buffered when they get a connection, so any order happens:
/// whole installs at once, a device offline for weeks, retries of requests
/// whose answer was lost.
enum ArrivalOrder: CaseIterable, Equatable, Sendable, CustomTestStringConvertible {
  case timeOrder
  case reverseTimeOrder
  case randomOrder
  /// Installs one after the other (by their first event), each one's
  /// events shuffled.
  case installsEachShuffled
  /// The last few days' events first, then the older ones.
  case lastDaysFirst
  /// One install's week of events arriving after everything else, as from
  /// a device offline for a month.
  case installWeekLast
  /// In time order, then the last few days' events again (those with an
  /// id): the retries of requests whose answer was lost, each a duplicate
  /// to be counted once. Some come right after the original, in the same
  /// batch or the next.
  case lateEventsResent

  var testDescription: String {
    switch self {
    case .timeOrder: "time order"
    case .reverseTimeOrder: "reverse time order"
    case .randomOrder: "random order"
    case .installsEachShuffled: "installs in order, each one's events shuffled"
    case .lastDaysFirst: "the last days first"
    case .installWeekLast: "one install's week last"
    case .lateEventsResent: "time order, late events sent again"
    }
  }

  /// The order's events as indices into `events`, in arrival order (an
  /// index again for each event sent again), and what was picked at random.
  func arrivals(of events: [Event], nowMs: Int64, _ generator: inout SeededGenerator) -> (
    description: String, indices: [Int]
  ) {
    let inTimeOrder = events.indices.sorted {
      (events[$0].timestampMs, $0) < (events[$1].timestampMs, $1)
    }
    switch self {
    case .timeOrder:
      return ("time order", inTimeOrder)
    case .reverseTimeOrder:
      return ("reverse time order", inTimeOrder.reversed())
    case .randomOrder:
      return ("random order", inTimeOrder.shuffled(using: &generator))
    case .installsEachShuffled:
      // Events without an install go together, as one more install.
      let byInstall = Dictionary(grouping: inTimeOrder) { events[$0].installId ?? "" }
      let installs = byInstall.values.sorted {
        (events[$0[0]].timestampMs, $0[0]) < (events[$1[0]].timestampMs, $1[0])
      }
      return (
        "installs in order, each one's events shuffled",
        installs.flatMap { $0.shuffled(using: &generator) }
      )
    case .lastDaysFirst:
      let days = Int64.random(in: 1...10, using: &generator)
      let startMs = nowMs - days * ArrivalTraffic.dayMs
      let (late, early) = inTimeOrder.partitioned { events[$0].timestampMs >= startMs }
      return ("the last \(days) days first", late + early)
    case .installWeekLast:
      let byInstall = Dictionary(grouping: inTimeOrder.filter { events[$0].installId != nil }) {
        events[$0].installId!
      }
      let busiest = byInstall.filter { $0.value.count >= 4 }.keys.sorted(by: textOrder)
      let installId = busiest.randomElement(using: &generator) ?? byInstall.keys.min(by: textOrder)!
      // The week that holds most of its events, so the late part is a real
      // queue, not a single event.
      let times = byInstall[installId]!.map { events[$0].timestampMs }
      let startMs = times.max { first, second in
        times.filter { $0 >= first && $0 < first + 7 * ArrivalTraffic.dayMs }.count
          < times.filter { $0 >= second && $0 < second + 7 * ArrivalTraffic.dayMs }.count
      }!
      let (week, rest) = inTimeOrder.partitioned { index in
        events[index].installId == installId && events[index].timestampMs >= startMs
          && events[index].timestampMs < startMs + 7 * ArrivalTraffic.dayMs
      }
      return (
        "\(installId)'s week from \(Timestamp.formatRFC3339(startMs)) last (\(week.count) events)",
        rest + week
      )
    case .lateEventsResent:
      let days = Int64.random(in: 1...5, using: &generator)
      let startMs = nowMs - days * ArrivalTraffic.dayMs
      var indices: [Int] = []
      var resent: [Int] = []
      for index in inTimeOrder {
        indices.append(index)
        guard events[index].timestampMs >= startMs, events[index].id != nil else { continue }
        if generator.chance(0.2) { indices.append(index) }
        resent.append(index)
      }
      return (
        "time order, then the last \(days) days' \(resent.count) events with an id sent again",
        indices + resent.shuffled(using: &generator)
      )
    }
  }
}

extension Array {
  /// The elements that satisfy `belongs`, and the others, each in order.
  func partitioned(by belongs: (Element) -> Bool) -> (Self, Self) {
    (filter(belongs), filter { !belongs($0) })
  }
}
