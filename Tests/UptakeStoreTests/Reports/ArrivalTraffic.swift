import UptakeCore
import UptakeDataGen

/// The one app's events the arrival-order property stores in every order,
/// made from a seed: simulated traffic (`EventSimulation`), which is
/// well-behaved, mixed with random events, which are not. The random ones
/// are what arrival order can trip over: installs whose versions go down
/// as well as up, downloads before impressions, test and real events of one
/// install, events without an install, events in one millisecond, and on
/// purpose pairs of impressions of one install and update in one
/// millisecond on different versions.
struct ArrivalTraffic {
  /// The end of the traffic: today (UTC) at a time of day the seed picks,
  /// so a seed gives the same events relative to day and hour boundaries
  /// whenever it is replayed.
  let nowMs: Int64
  /// Every event once; those with an id have ids of their own.
  let events: [Event]
  /// The reports asked for: every update with events and one without,
  /// each update's funnel without a target and with one: a random
  /// version, or the version the update offers.
  let queried: QueriedIds
  /// The default range and one that cuts through the data.
  let ranges: [(name: String, range: DayRange)]

  /// The random events' versions: up and down across them is as likely as
  /// up, and "2.10" > "2.0.1" only in version order. "2.0" equals the
  /// simulation's "2.0.0" as a version but not as text.
  static let versions = ["1.0", "1.1", "2.0", "2.0.1", "2.10", "3.0"]
  /// Updates only the random events have, beside the simulation's.
  static let randomUpdateIds = ["42", "spring-prompt"]
  static let days: Int64 = 40
  static let dayMs: Int64 = 86_400_000

  init(seed: UInt64, today: Int64) {
    var generator = SeededGenerator(seed: seed)
    let nowMs = today * Self.dayMs + Int64.random(in: 0..<Self.dayMs, using: &generator)
    self.nowMs = nowMs

    var parameters = EventSimulation.Parameters()
    parameters.seed = generator.next()
    parameters.installs = Int.random(in: 25...60, using: &generator)
    parameters.updates = Int.random(in: 3...6, using: &generator)
    parameters.days = Int(Self.days)
    parameters.endMs = nowMs
    parameters.testShare = 0.1
    let simulation = EventSimulation(parameters)
    var mix = RandomEvents(nowMs: nowMs, simulated: simulation.events())
    let updateIds = simulation.updates.map(\.updateId) + Self.randomUpdateIds
    mix.addRandomEvents(Int.random(in: 150...500, using: &generator), updateIds, &generator)
    mix.addImpressionsInOneMillisecond(
      Int.random(in: 4...8, using: &generator), updateIds, &generator)
    events = mix.events

    let present = Set(events.map(\.updateId)).sorted(by: textOrder)
    let offered = Dictionary(
      uniqueKeysWithValues: simulation.updates.map { ($0.updateId, $0.version) })
    queried = QueriedIds(
      updateIds: present + ["absent-update"],
      funnels: present.map { updateId in
        let targets = Self.versions + (offered[updateId].map { [$0] } ?? [])
        return (updateId, [nil, targets.randomElement(using: &generator)!])
      })

    let firstDay = Timestamp.dayNumber(ms: events.map(\.timestampMs).min() ?? nowMs)
    let fromDay = Int64.random(in: min(firstDay + 2, today - 20)...today - 20, using: &generator)
    ranges = [
      ("the default range", DayRange.lastThirtyDays(nowMs: nowMs)),
      (
        "a range cutting through the data",
        DayRange(
          fromDay: fromDay, toDay: Int64.random(in: fromDay + 3...today - 1, using: &generator))
      ),
    ]
  }
}

/// The events of `ArrivalTraffic` as they are made: the simulated ones
/// first, then the random ones, which pick their installs and times among
/// those already made as often as anew.
private struct RandomEvents {
  let nowMs: Int64
  private(set) var events: [Event] = []
  /// Installs of the simulation, and of the random events alone.
  private let simulatedInstalls: [String]
  private var devices: [String] = []
  /// The times each install has events at, for events in one millisecond.
  private var timesByInstall: [String: [Int64]] = [:]

  init(nowMs: Int64, simulated: [Event]) {
    self.nowMs = nowMs
    var seen = Set<String>()
    simulatedInstalls = simulated.compactMap(\.installId).filter { seen.insert($0).inserted }
    for event in simulated { record(event) }
  }

  private mutating func record(_ event: Event) {
    events.append(event)
    if let installId = event.installId {
      timesByInstall[installId, default: []].append(event.timestampMs)
    }
  }

  /// `count` events with every field random, a few without an id (those
  /// are never sent twice), without an install, or marked test.
  mutating func addRandomEvents(
    _ count: Int, _ updateIds: [String], _ generator: inout SeededGenerator
  ) {
    devices = (0..<Int.random(in: 10...40, using: &generator)).map { "device-\($0)" }
    for index in 0..<count {
      let installId: String? =
        generator.chance(0.08)
        ? nil
        : generator.chance(0.3)
          ? simulatedInstalls.randomElement(using: &generator)
          : devices.randomElement(using: &generator)
      let roll = Double.random(in: 0..<1, using: &generator)
      let action: Action =
        roll < 0.4 ? .impression : roll < 0.65 ? .download : roll < 0.85 ? .later : .ignore
      record(
        Event(
          id: generator.chance(0.9) ? "random-\(index)" : nil,
          updateId: updateIds.randomElement(using: &generator)!, action: action,
          appVersion: ArrivalTraffic.versions.randomElement(using: &generator)!,
          installId: installId, timestampMs: randomTime(installId, &generator),
          osVersion: ["17.4", "17.10", "14", nil].randomElement(using: &generator)!,
          platform: [Platform.ios, .android, .other, nil].randomElement(using: &generator)!,
          isTest: generator.chance(0.1)))
    }
  }

  /// A time in the last `ArrivalTraffic.days` days; one time in five, one
  /// another event already has (of the same install, when it has any).
  private func randomTime(_ installId: String?, _ generator: inout SeededGenerator) -> Int64 {
    if generator.chance(0.1), let installId,
      let time = timesByInstall[installId]?.randomElement(using: &generator)
    {
      return time
    }
    if generator.chance(0.1), let time = events.randomElement(using: &generator)?.timestampMs {
      return time
    }
    return nowMs
      - Int64.random(in: 0..<ArrivalTraffic.days * ArrivalTraffic.dayMs, using: &generator)
  }

  /// `count` installs shown an update twice in one millisecond on two
  /// versions, then downloading it and seen on the higher of the two: they
  /// upgraded only when their first impression is taken on the lower one,
  /// which the tie rule of `ReferenceScope.funnel` says it is. Half are
  /// new installs, half have other events.
  mutating func addImpressionsInOneMillisecond(
    _ count: Int, _ updateIds: [String], _ generator: inout SeededGenerator
  ) {
    for pair in 0..<count {
      let installId =
        pair % 2 == 0
        ? "tie-\(pair)" : (simulatedInstalls + devices).randomElement(using: &generator)!
      let updateId = updateIds.randomElement(using: &generator)!
      let versions = ArrivalTraffic.versions.shuffled(using: &generator).prefix(2)
      let (lower, higher) = (
        versions.min(by: VersionOrder.areInIncreasingOrder)!,
        versions.max(by: VersionOrder.areInIncreasingOrder)!
      )
      let shownMs =
        nowMs
        - Int64.random(
          in: 3 * ArrivalTraffic.dayMs..<ArrivalTraffic.days * ArrivalTraffic.dayMs,
          using: &generator)
      let isTest = generator.chance(0.1)
      let steps: [(Action, String, Int64)] = [
        (.impression, higher, 0), (.impression, lower, 0),
        (.download, lower, Int64.random(in: 1...3_600_000, using: &generator)),
        (.later, higher, Int64.random(in: 3_600_001...2 * ArrivalTraffic.dayMs, using: &generator)),
      ]
      for (step, (action, version, afterMs)) in steps.enumerated() {
        record(
          Event(
            id: "tie-\(pair)-\(step)", updateId: updateId, action: action, appVersion: version,
            installId: installId, timestampMs: shownMs + afterMs, isTest: isTest))
      }
    }
  }
}
