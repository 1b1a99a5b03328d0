/// Why the App Store gate answered less than the configuration alone would.
public enum StoreGateHold: String, Sendable, CaseIterable {
  /// The store in the install's country serves no version above it yet,
  /// past the grace.
  case notLiveYet = "not_live_yet"
  /// The app is not sold in the install's country.
  case notSold = "not_sold"
  /// The install is below `requiredVersion`, which the store does not
  /// serve yet: no forced prompt.
  case forceHeld = "force_held"
}

/// A check's decision once the store gate has had its say: what to answer,
/// the version the prompt offers, and what the gate held back.
public struct GatedDecision: Sendable, Equatable {
  public let decision: UpdateDecision
  /// The prompt's `latestversion`: the configured version, or the live one
  /// below it.
  public let offeredVersion: Version
  /// The minimum OS the answer applied: the configured one, or the
  /// store's for the offered version when higher.
  public let minimumOsVersion: Version?
  public let held: StoreGateHold?
}

extension UpdateEntry {
  /// The answer for an install in a country whose store is `store` (nil:
  /// nothing to gate by, as for an entry without `appStore`). The gate
  /// never sends an install to a store that cannot satisfy the prompt:
  /// 1. end of life answers as always: there is nothing to update to;
  /// 2. no prompt where the app is not sold or no version is live yet;
  /// 3. the prompt offers the live version, never above `latestVersion`,
  ///    and only to installs below it;
  /// 4. below `requiredVersion` the prompt is forced only once that is
  ///    live; until then the install gets the configured option's prompt
  ///    (if the rollout reaches it), and an entry whose option is `force`
  ///    none, since every prompt of it is forced;
  /// 5. the store's minimum OS for the live version applies when higher
  ///    than the configured one.
  public func decide(
    appVersion: Version, osVersion: Version?, installId: String?, store: StoreAvailability?
  ) -> GatedDecision {
    let ungated = decide(appVersion: appVersion, osVersion: osVersion, installId: installId)
    guard appStore != nil, let store, ungated != .endOfLife else {
      return GatedDecision(
        decision: ungated, offeredVersion: latestVersion, minimumOsVersion: minimumOsVersion,
        held: nil)
    }
    // A hold counts only where the configuration alone would show something.
    let wouldShow = ungated != .noUpdate
    func none(_ hold: StoreGateHold) -> GatedDecision {
      GatedDecision(
        decision: .noUpdate, offeredVersion: latestVersion, minimumOsVersion: minimumOsVersion,
        held: wouldShow ? hold : nil)
    }
    let live: Version
    let storeMinimumOs: Version?
    switch store {
    case .notSold: return none(.notSold)
    case .nothingLive: return none(.notLiveYet)
    case .live(let version, let minimumOs): (live, storeMinimumOs) = (version, minimumOs)
    }
    let offered = min(live, latestVersion)
    guard appVersion < offered else { return none(.notLiveYet) }
    let belowRequired = requiredVersion.map { appVersion < $0 } ?? false
    let requiredIsLive = requiredVersion.map { live >= $0 } ?? true
    var hold: StoreGateHold?
    var forcedByRequired = belowRequired
    if belowRequired && !requiredIsLive {
      guard option != .force else { return none(.forceHeld) }
      forcedByRequired = false
      hold = .forceHeld
    }
    let minimumOs = [minimumOsVersion, storeMinimumOs].compactMap { $0 }.max()
    let reached =
      forcedByRequired || option == .force
      || Rollout.includes(installId: installId, updateId: updateId, percent: rolloutPercent)
    let decision: UpdateDecision
    if !reached {
      decision = .noUpdate
    } else if let minimumOs, let osVersion, osVersion < minimumOs {
      decision = .unsupportedOS
    } else {
      decision = .prompt(belowRequired: forcedByRequired)
    }
    return GatedDecision(
      decision: decision, offeredVersion: offered, minimumOsVersion: minimumOs,
      held: wouldShow ? hold : nil)
  }
}
