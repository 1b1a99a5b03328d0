import UptakeCore
import UptakeStore

/// An app's live configuration compiled for the checks: every answer each
/// platform can give, in every language, rendered ahead, so a check is a few
/// version comparisons, a hash and a lookup.
struct CheckAnswers: Sendable {
  /// The configuration version these answers were compiled from.
  let version: Int64
  let platforms: [Platform: PlatformAnswers]

  init(_ configuration: UpdateConfiguration, version: Int64) {
    self.version = version
    var platforms: [Platform: PlatformAnswers] = [:]
    for entry in configuration.entries { platforms[entry.platform] = PlatformAnswers(entry) }
    self.platforms = platforms
  }

  /// Compiles a stored configuration; nil when it no longer validates.
  static func compile(_ stored: StoredUpdateConfiguration) -> CheckAnswers? {
    stored.configuration.map { CheckAnswers($0, version: stored.version) }
  }

  /// The lockout answer for a platform without a configuration: nothing is
  /// recommended or required.
  static let noLockout = PlatformAnswers.lockout(nil)
}
