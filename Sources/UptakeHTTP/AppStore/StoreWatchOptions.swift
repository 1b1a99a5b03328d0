import Foundation

/// How `uptaked` watches the App Store (issue 24): its flags, each with why.
public struct StoreWatchOptions: Sendable {
  /// Where lookups go: `{base}/{country}/lookup?id={id}`.
  public var lookupBase = "https://itunes.apple.com"
  /// Each watched country is looked up at least this often: a new version
  /// is seen within ten minutes, far inside any grace.
  public var refreshSeconds = 600
  /// Lookups a minute for the whole daemon: Apple documents about 20 and
  /// answers 403 past it.
  public var lookupsPerMinute = 20
  /// A lookup not answered in this long failed (and backs off).
  public var timeoutSeconds = 10.0
  /// A file holding the time in milliseconds since the epoch that the
  /// watch uses instead of the system's, for tests that must let hours of
  /// grace pass in seconds (env UPTAKE_TEST_CLOCK_FILE); nil for the system's.
  public var clockFile: String?

  public init() {}

  /// While a configured latestVersion is not live in a country yet, it is
  /// looked up this often: a tenth of the refresh.
  var urgentSeconds: Int { max(1, refreshSeconds / 10) }

  /// The watch's time now.
  func nowMs() -> Int64 {
    if let clockFile, let text = try? String(contentsOfFile: clockFile, encoding: .utf8),
      let ms = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines))
    {
      return ms
    }
    return Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
  }
}
