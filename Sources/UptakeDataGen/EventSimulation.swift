import UptakeCore

/// Realistic, deterministic update-prompt traffic. Each install starts on
/// some version; prompts for newer versions are shown to it over time; each
/// time the user picks Update (and, usually, the install reappears on the new
/// version hours or days later), Later (and is prompted again), Ignore, or
/// nothing. Used for demos, scale measurements, and as the input of tests
/// that check every report against an in-memory reference.
public struct EventSimulation: Sendable {
  public struct Parameters: Sendable {
    public var seed: UInt64 = 1
    public var installs = 1000
    public var updates = 10
    /// Events fall in the `days` days that end at `endMs`.
    public var days = 30
    public var endMs: Int64 = 0
    /// Days an install stays in use after its first event (then it churns).
    public var activeDays = 21
    /// Share of installs that are test devices, whose events are `test: true`.
    public var testShare = 0.01
    /// Probability of each choice after an impression.
    public var downloadChance = 0.35
    public var laterChance = 0.3
    public var ignoreChance = 0.15
    /// Share of downloads after which the install shows up on the new version.
    public var upgradeChance = 0.8

    public init() {}
  }

  /// One configured prompt and the version it offers.
  public struct Update: Sendable {
    public let updateId: String
    public let version: String
  }

  public let parameters: Parameters
  public let updates: [Update]

  public init(_ parameters: Parameters) {
    self.parameters = parameters
    updates = (0..<max(1, parameters.updates)).map { index in
      Update(updateId: String(782_000_001_589_000 + index), version: "2.\(index + 1).0")
    }
  }

  /// Calls `emit` with every event of every install, install by install, in
  /// time order within an install. Events are not sorted across installs.
  public func generate(_ emit: (Event) -> Void) {
    var generator = SeededGenerator(seed: parameters.seed)
    for installIndex in 0..<parameters.installs {
      var install = SimulatedInstall(installIndex, of: self, &generator)
      install.run(&generator, emit)
    }
  }

  fileprivate var startMs: Int64 { parameters.endMs - spanMs }
  fileprivate var spanMs: Int64 { Int64(parameters.days) * 86_400_000 }

  // Update i is released at an even step through the period; a prompt
  // always offers the newest release.
  fileprivate func newestRelease(at time: Int64) -> Int {
    min(updates.count - 1, Int((time - startMs) * Int64(updates.count) / spanMs))
  }

  fileprivate func releaseTime(_ index: Int) -> Int64 {
    startMs + Int64(index) * spanMs / Int64(updates.count)
  }
}

/// One install of a simulation: its device, and the version it runs as
/// time goes by.
private struct SimulatedInstall {
  let simulation: EventSimulation
  let installId: String
  let isTest: Bool
  let platform: Platform
  let osVersion: String
  var now: Int64
  let activeUntil: Int64
  /// The updates applied ("2.0.0" when none).
  var installed: Int
  var skippedThrough = -1
  var appVersion: String
  var previousVersion: String?

  init(_ installIndex: Int, of simulation: EventSimulation, _ generator: inout SeededGenerator) {
    let parameters = simulation.parameters
    self.simulation = simulation
    installId = "install-\(parameters.seed)-\(installIndex)"
    isTest = generator.chance(parameters.testShare)
    platform = generator.chance(0.5) ? .ios : .android
    osVersion = platform == .ios ? "17.\(generator.next() % 6)" : "\(12 + generator.next() % 3)"
    now = simulation.startMs + Int64(generator.next() % UInt64(simulation.spanMs))
    activeUntil = min(parameters.endMs, now + Int64(parameters.activeDays) * 86_400_000)
    // The install starts a few releases behind.
    installed = max(0, simulation.newestRelease(at: now) - Int(generator.next() % 4))
    appVersion = installed == 0 ? "2.0.0" : simulation.updates[installed - 1].version
  }

  /// Its events, from its first prompt until it churns.
  mutating func run(_ generator: inout SeededGenerator, _ emit: (Event) -> Void) {
    let parameters = simulation.parameters
    let updates = simulation.updates
    while now < activeUntil {
      let newest = simulation.newestRelease(at: now)
      guard newest >= installed, newest > skippedThrough else {
        // Up to date, or the newest was ignored: wait for the next release.
        let next = max(installed, skippedThrough + 1)
        guard next < updates.count else { break }
        now = max(now, simulation.releaseTime(next)) + Int64(generator.next() % 86_400_000)
        continue
      }
      let update = updates[newest]
      emit(event(.impression, update, &generator))
      now += 1000 + Int64(generator.next() % 60_000)
      guard now < activeUntil else { break }
      let roll = Double(generator.next() >> 11) / Double(1 << 53)
      if roll < parameters.downloadChance {
        emit(event(.download, update, &generator))
        guard generator.chance(parameters.upgradeChance) else { break }
        // The store install takes from minutes to a few days; the install
        // shows up on the new version at its next prompt.
        now += 600_000 + Int64(generator.next() % (3 * 86_400_000))
        previousVersion = appVersion
        appVersion = update.version
        installed = newest + 1
      } else if roll < parameters.downloadChance + parameters.laterChance {
        emit(event(.later, update, &generator))
        // Reminded after a few days, as a prompt's reminderDays says.
        now += 2 * 86_400_000 + Int64(generator.next() % (4 * 86_400_000))
      } else if roll < parameters.downloadChance + parameters.laterChance
        + parameters.ignoreChance
      {
        emit(event(.ignore, update, &generator))
        skippedThrough = newest
        now += 86_400_000 + Int64(generator.next() % (2 * 86_400_000))
      } else {
        // Dismissed: shown again at a later launch, days on.
        now += 2 * 86_400_000 + Int64(generator.next() % (2 * 86_400_000))
      }
    }
  }

  private func event(
    _ action: Action, _ update: EventSimulation.Update, _ generator: inout SeededGenerator
  ) -> Event {
    Event(
      id: generator.uuid(), updateId: update.updateId, action: action,
      appVersion: appVersion, installId: installId, timestampMs: now, osVersion: osVersion,
      platform: platform, previousAppVersion: previousVersion, isTest: isTest)
  }
}
