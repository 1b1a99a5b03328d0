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
/// every step takes a first time. An install is whatever stands for it:
/// its installId, or a 64-bit hash of it as one box's `installKey` is.
public struct FunnelFromEvents<Install: Hashable> {
  private struct Steps {
    var impressionTs = Int64.max
    /// Numbered by `upgrades.versions`.
    var impressionVersion: Int32 = 0
    var downloadTs = Int64.max
    var upgradeTs = Int64.max
  }

  /// One box's rules of versions (`UpgradeRule`), shared with its funnel.
  private var upgrades: UpgradeRule
  private var installs: [Install: Steps] = [:]
  private var downloads: [Install: [Int64]] = [:]

  public init(targetVersion: String?) {
    upgrades = UpgradeRule(target: targetVersion.flatMap(Version.init))
  }

  /// An impression of the update.
  public mutating func impression(install: Install, at ts: Int64, appVersion: String) {
    let version = upgrades.versions.number(appVersion)
    var steps = installs[install] ?? Steps()
    if ts < steps.impressionTs
      || (ts == steps.impressionTs && upgrades.isFirst(version, before: steps.impressionVersion))
    {
      steps.impressionTs = ts
      steps.impressionVersion = version
    }
    installs[install] = steps
  }

  /// A download of the update; matched once every impression is in.
  public mutating func download(install: Install, at ts: Int64) {
    downloads[install, default: []].append(ts)
  }

  /// Settles each install's first download at or after its impression;
  /// call after every impression and download, before `events`.
  public mutating func matchDownloads() {
    for (install, times) in downloads {
      guard var steps = installs[install] else { continue }
      steps.downloadTs = times.filter { $0 >= steps.impressionTs }.min() ?? .max
      installs[install] = steps
    }
  }

  /// Events of the app (any update, any action) by an install on one
  /// version, at `times` in any order: the version is looked up once for
  /// all of them.
  public mutating func events(
    install: Install, at times: some Sequence<Int64>, appVersion: String
  ) {
    guard var steps = installs[install], steps.downloadTs != .max,
      upgrades.isUpgrade(upgrades.versions.number(appVersion), from: steps.impressionVersion)
    else { return }
    for ts in times where ts > steps.downloadTs && ts < steps.upgradeTs {
      steps.upgradeTs = ts
    }
    installs[install] = steps
  }

  public var result: FunnelResult {
    var downloaded = 0
    var hours: [Double] = []
    for steps in installs.values where steps.downloadTs != .max {
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
