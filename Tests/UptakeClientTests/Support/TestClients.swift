import Foundation
import UptakeClient

extension UptakeLimits {
  /// Short timeouts and backoffs, and no flush but the test's own.
  static func forTests(
    maxQueuedEvents: Int = 10_000, batchSize: Int = 100, attemptsPerFlush: Int = 3,
    maxRetryAfterWait: TimeInterval = 5
  ) -> UptakeLimits {
    UptakeLimits(
      maxQueuedEvents: maxQueuedEvents, batchSize: batchSize, checkTimeout: 1, requestTimeout: 10,
      attemptsPerFlush: attemptsPerFlush, initialBackoff: 0.02, maxBackoff: 0.1,
      maxRetryAfterWait: maxRetryAfterWait, autoFlushDelay: nil)
  }
}

/// A client of an app at version 2.0.0 on iOS 17.4, German (Switzerland).
func testClient(
  _ baseURL: URL, key: String, storage: URL, limits: UptakeLimits = .forTests()
) throws -> UptakeClient {
  try UptakeClient(
    configuration: UptakeConfiguration(
      baseURL: baseURL, ingestKey: key, appVersion: "2.0.0", platform: .ios, osVersion: "17.4",
      locale: "de-CH", storageDirectory: storage, limits: limits))
}

/// The event ids of an ingest body, in order.
func eventIds(_ body: Data) throws -> [String] {
  struct Body: Decodable {
    let events: [Event]
    struct Event: Decodable { let id: String }
  }
  return try JSONDecoder().decode(Body.self, from: body).events.map(\.id)
}
