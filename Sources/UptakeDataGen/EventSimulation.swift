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
    let startMs = parameters.endMs - Int64(parameters.days) * 86_400_000
    let spanMs = UInt64(parameters.days) * 86_400_000
    for installIndex in 0..<parameters.installs {
      let installId = "install-\(parameters.seed)-\(installIndex)"
      let isTest = generator.chance(parameters.testShare)
      let platform: Platform = generator.chance(0.5) ? .ios : .android
      let osVersion =
        platform == .ios ? "17.\(generator.next() % 6)" : "\(12 + generator.next() % 3)"
      var versionIndex = Int(generator.next() % UInt64(updates.count))
      var appVersion = versionIndex == 0 ? "2.0.0" : updates[versionIndex - 1].version
      var previousVersion: String?
      var now = startMs + Int64(generator.next() % spanMs)

      func record(_ action: Action, _ update: Update) {
        emit(
          Event(
            id: generator.uuid(), updateId: update.updateId, action: action,
            appVersion: appVersion, installId: installId, timestampMs: now, osVersion: osVersion,
            platform: platform, previousAppVersion: previousVersion, isTest: isTest))
      }

      // Prompts keep coming while there is a newer version and time left.
      while versionIndex < updates.count && now < parameters.endMs {
        let update = updates[versionIndex]
        record(.impression, update)
        now += 1000 + Int64(generator.next() % 60_000)
        guard now < parameters.endMs else { break }
        let roll = Double(generator.next() >> 11) / Double(1 << 53)
        if roll < parameters.downloadChance {
          record(.download, update)
          guard generator.chance(parameters.upgradeChance) else { break }
          // The store install takes from minutes to a few days; the install
          // shows up on the new version at its next prompt.
          now += 600_000 + Int64(generator.next() % (3 * 86_400_000))
          previousVersion = appVersion
          appVersion = update.version
          versionIndex += 1
        } else if roll < parameters.downloadChance + parameters.laterChance {
          record(.later, update)
          now += 3_600_000 + Int64(generator.next() % (2 * 86_400_000))
        } else if roll < parameters.downloadChance + parameters.laterChance
          + parameters.ignoreChance
        {
          record(.ignore, update)
          // Ignoring skips this version; the next one is offered later.
          now += 86_400_000 + Int64(generator.next() % (5 * 86_400_000))
          versionIndex += 1
        } else {
          now += 3_600_000 + Int64(generator.next() % 86_400_000)
        }
      }
    }
  }
}
