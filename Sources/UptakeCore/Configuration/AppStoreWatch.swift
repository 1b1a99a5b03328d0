/// An Apple platform's App Store app, named by an entry so that its checks
/// only offer what the store in the user's country serves (issue 24): the
/// daemon looks the app up in each of `countries`, and a version becomes
/// live in a country `graceHours` after a lookup there first showed it, or
/// a higher one. The grace covers Apple's lookup running ahead of its
/// download servers, which sends users to a store page still offering the
/// old version: the force-update loop.
public struct AppStoreWatch: Sendable, Equatable {
  /// The App Store's numeric app id (`id` in the lookup, `trackId` in its answer).
  public let appId: String
  /// Lower-case ISO 3166-1 alpha-2 codes, in the document's order: the
  /// first is the country of a check that names none.
  public let countries: [String]
  public let graceHours: Int

  public static let defaultGraceHours = 24
  /// A week: longer than Apple's slowest rollout, and short enough that a
  /// mistaken value still lets an update through.
  public static let maxGraceHours = 168
  /// Apple's app ids have 9 or 10 digits today; leave room, refuse nonsense.
  static let maxAppIdDigits = 20

  public init(appId: String, countries: [String], graceHours: Int = defaultGraceHours) {
    self.appId = appId
    self.countries = countries
    self.graceHours = graceHours
  }

  /// The grace in milliseconds.
  public var graceMs: Int64 { Int64(graceHours) * 3_600_000 }

  /// The platforms an App Store serves.
  public static let platforms: Set<Platform> = [.ios, .ipados, .macos, .tvos, .watchos, .visionos]
}
