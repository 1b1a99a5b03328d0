/// What the lookups of one app in one country's App Store have shown over
/// time, and so which version is live there now. A version is live once a
/// lookup has shown it, or a higher one, and the grace has passed since the
/// first such lookup (issue 24). Failed lookups change nothing but the
/// record of the last lookup.
public struct CountryStoreState: Sendable, Equatable {
  /// A version a lookup has shown.
  public struct SeenVersion: Sendable, Equatable {
    public let version: Version
    /// When a lookup first showed it (ms since the epoch).
    public let firstSeenMs: Int64
    /// The store's minimum OS for it, as that lookup gave it.
    public let minimumOsVersion: Version?

    public init(version: Version, firstSeenMs: Int64, minimumOsVersion: Version?) {
      self.version = version
      self.firstSeenMs = firstSeenMs
      self.minimumOsVersion = minimumOsVersion
    }
  }

  /// The last lookup: when, and what came of it.
  public struct Lookup: Sendable, Equatable {
    public let atMs: Int64
    /// `ok`, `not_sold`, or a `StoreLookupProblem.outcome`.
    public let outcome: String
    /// For a failure, what went wrong, for the operator.
    public let detail: String?

    public init(atMs: Int64, outcome: String, detail: String?) {
      self.atMs = atMs
      self.outcome = outcome
      self.detail = detail
    }
  }

  /// Every version shown, lowest first.
  public private(set) var seen: [SeenVersion] = []
  public private(set) var lastLookup: Lookup?
  /// Whether the last lookup that answered found the app not sold here.
  public private(set) var notSold = false
  /// Failed lookups since the last one that answered: the back-off's count.
  public private(set) var failuresInARow = 0

  public init() {}

  /// A state as it was kept (`StoreWatchRecords`).
  public init(seen: [SeenVersion], lastLookup: Lookup?, notSold: Bool, failuresInARow: Int) {
    self.seen = seen.sorted { $0.version < $1.version }
    self.lastLookup = lastLookup
    self.notSold = notSold
    self.failuresInARow = failuresInARow
  }

  /// Records a lookup made at `nowMs`.
  public mutating func record(
    _ result: Result<StoreLookupAnswer, StoreLookupProblem>, at nowMs: Int64
  ) {
    switch result {
    case .success(.notSold):
      notSold = true
      failuresInARow = 0
      lastLookup = Lookup(atMs: nowMs, outcome: "not_sold", detail: nil)
    case .success(.serves(let version, let minimumOsVersion)):
      notSold = false
      failuresInARow = 0
      lastLookup = Lookup(atMs: nowMs, outcome: "ok", detail: nil)
      if !seen.contains(where: { $0.version == version }) {
        seen.append(
          SeenVersion(version: version, firstSeenMs: nowMs, minimumOsVersion: minimumOsVersion))
        seen.sort { $0.version < $1.version }
      }
    case .failure(let problem):
      failuresInARow += 1
      lastLookup = Lookup(atMs: nowMs, outcome: problem.outcome, detail: problem.description)
    }
  }

  /// When `version` became live, or will: the first time a lookup showed
  /// it or a higher one, plus the grace. Nil when none has been shown.
  public func liveSinceMs(_ version: Version, graceMs: Int64) -> Int64? {
    seen.lazy.filter { $0.version >= version }.map(\.firstSeenMs).min().map { $0 + graceMs }
  }

  /// The highest version shown that is live at `nowMs`; nil while none is,
  /// and where the app is not sold.
  public func live(at nowMs: Int64, graceMs: Int64) -> SeenVersion? {
    guard !notSold else { return nil }
    return seen.last { (liveSinceMs($0.version, graceMs: graceMs) ?? .max) <= nowMs }
  }

  /// The country's state as `/v1/store` and `uptake updates status` name it.
  public enum Status: String, Sendable {
    /// Never looked up.
    case unknown
    case nothingLive = "nothing_live"
    case live
    case notSold = "not_sold"
  }

  public func status(at nowMs: Int64, graceMs: Int64) -> Status {
    switch availability(at: nowMs, graceMs: graceMs) {
    case .notSold: .notSold
    case .nothingLive: lastLookup == nil ? .unknown : .nothingLive
    case .live: .live
    }
  }

  /// What a check in this country may rely on at `nowMs`.
  public func availability(at nowMs: Int64, graceMs: Int64) -> StoreAvailability {
    if notSold { return .notSold }
    guard let live = live(at: nowMs, graceMs: graceMs) else { return .nothingLive }
    return .live(version: live.version, minimumOsVersion: live.minimumOsVersion)
  }
}

/// What one country's App Store serves, for a check.
public enum StoreAvailability: Sendable, Equatable {
  /// No version is live yet: none shown, or none past its grace.
  case nothingLive
  /// The app is not sold in the country.
  case notSold
  /// The highest live version, with the store's minimum OS for it.
  case live(version: Version, minimumOsVersion: Version?)
}
