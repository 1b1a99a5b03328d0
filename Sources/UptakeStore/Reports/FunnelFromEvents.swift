import UptakeCore

/// The contract's funnel worked out from an update's raw events, for a
/// store that keeps events rather than one box's folded rows (a node over
/// a cluster, `ClusterReports.funnel`). The same rules as
/// `ReportQueries.funnel`: the first impression in the range (at one time
/// the lowest version); the first download of the update at or after it;
/// the first event of the app after that download on a version above the
/// impression's, or at least `target` when one is configured.
///
/// Feed it every event of the range in any order; an event given twice
/// (the cluster holds a duplicate until its merges) changes nothing, as
/// every step takes a first time. An install is a 64-bit hash of its
/// installId, as one box's `installKey` is.
///
/// Installs are held in `InstallMap`s, not in generic dictionaries: built
/// in another module, a generic `FunnelFromEvents<UInt64>` ran
/// unspecialized, and a node spent 0.4 s of CPU on the busiest update's
/// funnel over the bench's 30 days, much of it in generic dictionary code.
public struct FunnelFromEvents {
  public typealias Install = UInt64

  private struct Steps {
    var impressionTs = Int64.max
    /// Numbered by `upgrades.versions`.
    var impressionVersion: Int32 = 0
    var downloadTs = Int64.max
    var upgradeTs = Int64.max
  }

  /// One box's rules of versions (`UpgradeRule`), shared with its funnel.
  private var upgrades: UpgradeRule
  private var installs = InstallMap<Steps>()
  private var downloads = InstallMap<[Int64]>()

  public init(targetVersion: String?) {
    upgrades = UpgradeRule(target: targetVersion.flatMap(Version.init))
  }

  /// An impression of the update, its version as UTF-8 bytes.
  public mutating func impression(
    install: Install, at ts: Int64, appVersion: UnsafeBufferPointer<UInt8>
  ) {
    let version = upgrades.versions.number(appVersion)
    let key = Int64(bitPattern: install)
    var steps = installs[key] ?? Steps()
    if ts < steps.impressionTs
      || (ts == steps.impressionTs && upgrades.isFirst(version, before: steps.impressionVersion))
    {
      steps.impressionTs = ts
      steps.impressionVersion = version
    }
    installs.set(key, steps)
  }

  /// A download of the update; matched once every impression is in.
  public mutating func download(install: Install, at ts: Int64) {
    downloads.update(Int64(bitPattern: install), initial: []) { $0.append(ts) }
  }

  /// Settles each install's first download at or after its impression;
  /// call after every impression and download, before `events`.
  public mutating func matchDownloads() {
    downloads.forEach { install, times in
      installs.modify(install) { steps in
        steps.downloadTs = times.filter { $0 >= steps.impressionTs }.min() ?? .max
      }
    }
  }

  /// Events of the app (any update, any action) by an install on one
  /// version, at `times` in any order: the version is looked up once for
  /// all of them.
  public mutating func events(
    install: Install, at times: some Sequence<Int64>, appVersion: UnsafeBufferPointer<UInt8>
  ) {
    let key = Int64(bitPattern: install)
    guard var steps = installs[key], steps.downloadTs != .max,
      upgrades.isUpgrade(upgrades.versions.number(appVersion), from: steps.impressionVersion)
    else { return }
    for ts in times where ts > steps.downloadTs && ts < steps.upgradeTs {
      steps.upgradeTs = ts
    }
    installs.set(key, steps)
  }

  public var result: FunnelResult {
    var downloaded = 0
    var hours: [Double] = []
    installs.forEach { _, steps in
      guard steps.downloadTs != .max else { return }
      downloaded += 1
      if steps.upgradeTs != .max {
        hours.append(Double(steps.upgradeTs - steps.impressionTs) / 3_600_000)
      }
    }
    return FunnelResult(
      impressions: installs.count, downloads: downloaded, upgraded: hours.count,
      medianHoursToUpgrade: ReportQueries.median(hours))
  }
}
