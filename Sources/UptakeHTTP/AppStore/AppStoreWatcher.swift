import Foundation
import Synchronization
import UptakeCore
import UptakeStore

/// Looks up every App Store country the live configurations watch, on a
/// thread of its own, and keeps what the lookups showed (`CountryStoreState`)
/// for the checks, which read it from memory: a lookup never sits on a
/// check's path (issue 24).
///
/// Pacing: one lookup at a time, at most `lookupsPerMinute` for the whole
/// daemon, in real time whatever the watch's clock says. Each country is
/// due `refreshSeconds` after its last lookup, a tenth of that while a
/// configured latestVersion is not live there yet, and a never-seen one at
/// once; the most overdue goes first. A failed lookup is retried after a
/// back-off that doubles up to the refresh; Apple's throttling (403, 429)
/// pauses every lookup the same way, since it counts the whole address.
public final class AppStoreWatcher: Sendable {
  /// One lookup target: an App Store app in one country, whichever apps
  /// and platforms watch it; the key its state is kept under too.
  typealias Target = StoreWatchRecords.Key

  /// What a target needs from the configurations: whether a configured
  /// latestVersion is still not live there.
  struct Watched: Sendable {
    var graceMs: Int64
    var latestVersions: [Version]
  }

  private struct State: Sendable {
    var countries: [Target: CountryStoreState] = [:]
    /// When each target was last asked, in the system's time: the schedule
    /// runs on it, not on the watch's clock, which a test moves by hours.
    var askedAt: [Target: Date] = [:]
    var lookups: [String: Int] = [:]
    /// Throttled answers in a row: the global pause's count.
    var throttledInARow = 0
  }

  let options: StoreWatchOptions
  private let targets: @Sendable () -> [Target: Watched]
  private let client: StoreLookupClient
  private let state = Mutex(State())
  private let stopped = Atomic<Bool>(false)
  private let started = Atomic<Bool>(false)
  /// Checks held back, by `StoreGateHold`, counted without a lock: every
  /// gated check may add one, on the server's threads.
  private let heldNotLiveYet = Atomic<Int>(0)
  private let heldNotSold = Atomic<Int>(0)
  private let heldForce = Atomic<Int>(0)
  private let finished = DispatchSemaphore(value: 0)
  private let logger: Logger
  /// Where each lookup's outcome is kept (`StoreWatchRecords`); nil keeps
  /// it in memory only.
  private let records: Mutex<Database?>

  /// `targets` lists what the live configurations watch; it is asked
  /// again before every lookup, so a put configuration is watched at once.
  /// With `records`, the state kept there is where the watch starts.
  init(
    options: StoreWatchOptions, logger: Logger, records: sending Database? = nil,
    targets: @escaping @Sendable () -> [Target: Watched]
  ) throws(StoreError) {
    self.options = options
    self.targets = targets
    self.logger = logger
    client = StoreLookupClient(timeoutSeconds: options.timeoutSeconds)
    if let records {
      let kept = try StoreWatchRecords.load(records)
      state.withLock { $0.countries = kept }
    }
    self.records = Mutex(records)
  }

  /// What the configurations `compiled` watch: each App Store app and
  /// country, with the grace and the latest versions configured for it.
  static func targets(of compiled: some Sequence<CheckAnswers>) -> [Target: Watched] {
    var targets: [Target: Watched] = [:]
    for answers in compiled {
      for platform in answers.platforms.values {
        guard let watch = platform.entry.appStore else { continue }
        for country in watch.countries {
          targets[
            Target(appStoreId: watch.appId, country: country),
            default: Watched(graceMs: watch.graceMs, latestVersions: [])
          ].latestVersions.append(platform.entry.latestVersion)
        }
      }
    }
    return targets
  }

  /// The watch's time now (`StoreWatchOptions.clockFile` in tests).
  func nowMs() -> Int64 { options.nowMs() }

  /// What the store of app `appId` serves in `country` for a check now.
  func availability(appId: String, country: String, graceMs: Int64) -> StoreAvailability {
    let now = nowMs()
    return state.withLock {
      $0.countries[Target(appStoreId: appId, country: country)]?.availability(
        at: now, graceMs: graceMs)
    } ?? .nothingLive
  }

  /// Counts a check the gate held back.
  func held(_ hold: StoreGateHold) {
    switch hold {
    case .notLiveYet: heldNotLiveYet.add(1, ordering: .relaxed)
    case .notSold: heldNotSold.add(1, ordering: .relaxed)
    case .forceHeld: heldForce.add(1, ordering: .relaxed)
    }
  }

  /// Checks held back for `hold` so far.
  private func heldCount(_ hold: StoreGateHold) -> Int {
    switch hold {
    case .notLiveYet: heldNotLiveYet.load(ordering: .relaxed)
    case .notSold: heldNotSold.load(ordering: .relaxed)
    case .forceHeld: heldForce.load(ordering: .relaxed)
    }
  }

  /// Every country's state now, for `/v1/store`.
  func snapshot(appId: String, country: String) -> CountryStoreState? {
    state.withLock { $0.countries[Target(appStoreId: appId, country: country)] }
  }

  /// The watch's counters in the Prometheus text format.
  func exposition() -> String {
    let snapshot = state.withLock { $0 }
    var text = "# HELP uptake_app_store_lookups_total App Store lookups, by outcome.\n"
    text += "# TYPE uptake_app_store_lookups_total counter\n"
    for outcome in Self.outcomes {
      text +=
        "uptake_app_store_lookups_total{outcome=\"\(outcome)\"} \(snapshot.lookups[outcome] ?? 0)\n"
    }
    text +=
      "# HELP uptake_checks_held_by_store_total Checks answered less than the configuration "
      + "says because of what the App Store serves, by reason.\n"
    text += "# TYPE uptake_checks_held_by_store_total counter\n"
    for hold in StoreGateHold.allCases {
      text +=
        "uptake_checks_held_by_store_total{reason=\"\(hold.rawValue)\"} \(heldCount(hold))\n"
    }
    return text
  }

  /// Every outcome a lookup can have: the metric's fixed label set.
  static let outcomes = ["ok", "not_sold", "throttled", "http_error", "unreachable", "garbage"]

  /// Starts the thread.
  func start() {
    started.store(true, ordering: .releasing)
    let thread = Thread { [self] in
      run()
      finished.signal()
    }
    thread.name = "uptake-app-store"
    thread.start()
  }

  /// Stops the thread, waiting at most 2 s for the lookup under way: a
  /// shutdown must not wait out Apple's slowest answer. A lookup that ends
  /// later is written as any other, in its own transaction.
  func stop() {
    stopped.store(true, ordering: .releasing)
    if started.load(ordering: .acquiring) { _ = finished.wait(timeout: .now() + 2) }
  }

  private func run() {
    let spacing = 60.0 / Double(max(1, options.lookupsPerMinute))
    var nextAllowed = Date.distantPast
    while !stopped.load(ordering: .acquiring) {
      let now = Date()
      guard now >= nextAllowed else {
        pause(until: nextAllowed)
        continue
      }
      guard let target = mostOverdue() else {
        pause(until: now.addingTimeInterval(0.2))
        continue
      }
      guard
        let url = StoreLookupClient.url(
          base: options.lookupBase, country: target.country, appId: target.appStoreId)
      else {
        logger.error("cannot form the App Store lookup URL", ["base": options.lookupBase])
        pause(until: now.addingTimeInterval(spacing))
        continue
      }
      let result = client.lookUp(url, appId: target.appStoreId)
      let lookedUpAt = nowMs()
      let (throttled, country) = state.withLock { state -> (Int, CountryStoreState) in
        state.countries[target, default: CountryStoreState()].record(result, at: lookedUpAt)
        state.askedAt[target] = Date()
        let outcome: String
        switch result {
        case .success(.notSold): outcome = "not_sold"
        case .success: outcome = "ok"
        case .failure(let problem): outcome = problem.outcome
        }
        state.lookups[outcome, default: 0] += 1
        state.throttledInARow = outcome == "throttled" ? state.throttledInARow + 1 : 0
        return (state.throttledInARow, state.countries[target]!)
      }
      keep(country, target)
      if case .failure(let problem) = result {
        logger.warning(
          "App Store lookup failed; the country keeps what was last seen",
          [
            "country": target.country, "app_store.id": target.appStoreId,
            "error": problem.description,
          ])
      }
      nextAllowed = Date().addingTimeInterval(
        throttled > 0 ? max(spacing, backOffSeconds(failures: throttled)) : spacing)
    }
  }

  /// Writes a country's state to the records; a failure (a full disk)
  /// is logged, and the watch goes on from memory.
  private func keep(_ country: CountryStoreState, _ target: Target) {
    do throws(StoreError) {
      try records.withLock { (database) throws(StoreError) in
        guard let database else { return }
        try StoreWatchRecords.save(country, for: target, in: database)
      }
    } catch {
      logger.error(
        "cannot keep the App Store lookup's outcome",
        ["country": target.country, "error": error.description])
    }
  }

  /// Sleeps until `date` or about a fifth of a second, whichever is sooner,
  /// so a stop or a new configuration is noticed.
  private func pause(until date: Date) {
    Thread.sleep(forTimeInterval: max(0.01, min(0.2, date.timeIntervalSinceNow)))
  }

  /// The target due longest ago, nil when none is due.
  private func mostOverdue() -> Target? {
    let watched = targets()
    let (now, watchNow) = (Date(), nowMs())
    return state.withLock { state -> Target? in
      var best: (target: Target, due: Date)?
      for (target, watch) in watched {
        let due = self.due(
          state.countries[target], askedAt: state.askedAt[target], watch, watchNow: watchNow)
        if due <= now && (best.map { due < $0.due } ?? true) { best = (target, due) }
      }
      return best?.target
    }
  }

  /// When a country is due for its next lookup: at once if never asked.
  private func due(
    _ country: CountryStoreState?, askedAt: Date?, _ watch: Watched, watchNow: Int64
  ) -> Date {
    guard let country, let askedAt else { return .distantPast }
    if country.failuresInARow > 0 {
      return askedAt.addingTimeInterval(backOffSeconds(failures: country.failuresInARow))
    }
    let live = country.live(at: watchNow, graceMs: watch.graceMs)?.version
    let behind =
      !country.notSold
      && watch.latestVersions.contains { latest in live.map { $0 < latest } ?? true }
    return askedAt.addingTimeInterval(
      Double(behind ? options.urgentSeconds : options.refreshSeconds))
  }

  /// A twentieth of the refresh, doubled for each failure in a row, at
  /// most the refresh: 30 s, 60 s, 120 s … 600 s by default.
  private func backOffSeconds(failures: Int) -> Double {
    let base = max(1.0, Double(options.refreshSeconds) / 20)
    return min(Double(options.refreshSeconds), base * pow(2, Double(min(failures, 20) - 1)))
  }
}
