import Foundation

/// Everything an `UptakeClient` needs to know about the app and the server.
public struct UptakeConfiguration: Sendable {
  /// The server, e.g. `https://uptake.example.com`; paths are added to it.
  public var baseURL: URL
  /// The app's ingest key: public and write-only, it ships inside the app.
  public var ingestKey: String
  /// The platform checks and events name; by default the one compiled for.
  public var platform: Platform
  /// The running app's version, e.g. `2.0.0`.
  public var appVersion: String
  /// The device's OS version, e.g. `17.4`.
  public var osVersion: String?
  /// The user's language for the prompt's texts, e.g. `de-CH`.
  public var locale: String?
  /// Where the queue, the install id and the last check answer live; one
  /// client at a time per directory (an app and its extensions each need
  /// their own).
  public var storageDirectory: URL
  /// Queue bounds, batch size, timeouts and retry timings.
  public var limits: UptakeLimits

  /// A configuration with the device's platform, OS version and language
  /// unless given.
  public init(
    baseURL: URL, ingestKey: String, appVersion: String,
    platform: Platform = .current,
    osVersion: String? = UptakeConfiguration.currentOSVersion,
    locale: String? = Locale.preferredLanguages.first,
    storageDirectory: URL = UptakeConfiguration.defaultStorageDirectory,
    limits: UptakeLimits = UptakeLimits()
  ) {
    self.baseURL = baseURL
    self.ingestKey = ingestKey
    self.platform = platform
    self.appVersion = appVersion
    self.osVersion = osVersion
    self.locale = locale
    self.storageDirectory = storageDirectory
    self.limits = limits
  }

  /// The running OS's version as `major.minor.patch`.
  public static var currentOSVersion: String {
    let version = ProcessInfo.processInfo.operatingSystemVersion
    return "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
  }

  /// `Uptake` in the user's Application Support directory (on Linux,
  /// `~/.local/share/Uptake`).
  public static var defaultStorageDirectory: URL {
    let base =
      FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
      ?? FileManager.default.temporaryDirectory
    return base.appendingPathComponent("Uptake", isDirectory: true)
  }
}
