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

/// Bounds and timings of the queue and its delivery.
public struct UptakeLimits: Sendable {
  /// The most events kept on disk; past it the oldest are dropped (counted in
  /// `UptakeClient.Stats.droppedOldest`). 10 000 events are about 3 MB, and
  /// far more prompts than an app shows between two launches with a network.
  public var maxQueuedEvents: Int
  /// Events per request, at most the contract's 1000 per request.
  public var batchSize: Int
  /// The longest a check may take before it counts as "no update": an app
  /// launch must not wait on Uptake.
  public var checkTimeout: TimeInterval
  /// The longest one ingest request may take.
  public var requestTimeout: TimeInterval
  /// Tries per batch within one flush before the flush gives up and leaves
  /// the events queued for the next one.
  public var attemptsPerFlush: Int
  /// The first retry's delay; each further retry doubles it, with jitter.
  public var initialBackoff: TimeInterval
  /// The longest delay between two tries.
  public var maxBackoff: TimeInterval
  /// A flush waits for a `Retry-After` up to this long; a longer one ends the
  /// flush, and no flush sends again before it has passed.
  public var maxRetryAfterWait: TimeInterval
  /// How long after a `record` the client flushes by itself, gathering the
  /// events of a moment into one request; nil: only `flush()` sends.
  public var autoFlushDelay: TimeInterval?

  /// The defaults suit an app; out-of-range sizes are brought into range.
  public init(
    maxQueuedEvents: Int = 10_000, batchSize: Int = 500, checkTimeout: TimeInterval = 5,
    requestTimeout: TimeInterval = 30, attemptsPerFlush: Int = 4, initialBackoff: TimeInterval = 1,
    maxBackoff: TimeInterval = 60, maxRetryAfterWait: TimeInterval = 30,
    autoFlushDelay: TimeInterval? = 2
  ) {
    self.maxQueuedEvents = max(1, maxQueuedEvents)
    self.batchSize = min(max(1, batchSize), UptakeLimits.contractBatchMaximum)
    self.checkTimeout = checkTimeout
    self.requestTimeout = requestTimeout
    self.attemptsPerFlush = max(1, attemptsPerFlush)
    self.initialBackoff = initialBackoff
    self.maxBackoff = maxBackoff
    self.maxRetryAfterWait = maxRetryAfterWait
    self.autoFlushDelay = autoFlushDelay
  }

  /// The contract's most events in one ingest request.
  public static let contractBatchMaximum = 1000
}
