/// What an update check answers one install, before it is put in words.
public enum UpdateDecision: Sendable, Equatable {
  /// Nothing to show.
  case noUpdate
  /// The update prompt. `belowRequired`: the install is older than the
  /// required version, so the prompt is forced whatever the option says.
  case prompt(belowRequired: Bool)
  /// The install's OS is older than the update needs.
  case unsupportedOS
  /// The app is at end of life on this platform.
  case endOfLife
}

extension UpdateEntry {
  /// The answer for an install on `appVersion`, in this order:
  /// 1. end of life answers every install of the platform, whatever its
  ///    version: there is nothing to update to;
  /// 2. an install at or above `latestVersion` has no update;
  /// 3. a forced prompt (below `requiredVersion`, or option `force`)
  ///    reaches every install; any other only the installs in the rollout;
  /// 4. an install the prompt reaches whose OS is known and older than
  ///    `minimumOsVersion` gets the non-supported-OS answer instead (an
  ///    unknown OS gets the prompt: the store has the last word).
  public func decide(appVersion: Version, osVersion: Version?, installId: String?)
    -> UpdateDecision
  {
    if eol { return .endOfLife }
    guard appVersion < latestVersion else { return .noUpdate }
    let belowRequired = requiredVersion.map { appVersion < $0 } ?? false
    let reached =
      belowRequired || option == .force
      || Rollout.includes(installId: installId, updateId: updateId, percent: rolloutPercent)
    guard reached else { return .noUpdate }
    if let minimumOsVersion, let osVersion, osVersion < minimumOsVersion { return .unsupportedOS }
    return .prompt(belowRequired: belowRequired)
  }

  /// The option the prompt shows: `force` below the required version.
  public func option(belowRequired: Bool) -> UpdateOption {
    belowRequired ? .force : option
  }
}
