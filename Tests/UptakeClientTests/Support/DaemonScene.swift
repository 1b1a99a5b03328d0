import Foundation
import UptakeClient

/// A test's own directory with a running uptaked in it, and a client storage
/// directory beside its database.
final class DaemonScene {
  let directory: TestDirectory
  let daemon: RunningDaemon

  init() throws {
    directory = try TestDirectory()
    daemon = try RunningDaemon(directory: directory)
  }

  /// Where the scene's clients keep their queue and install id.
  var storage: URL { directory.appending("client") }

  /// A client of the daemon with its ingest key, on the scene's storage.
  func client(limits: UptakeLimits = .forTests()) throws -> UptakeClient {
    try testClient(daemon.baseURL, key: daemon.ingestKey, storage: storage, limits: limits)
  }

  /// Stops the daemon and removes the directory; for `defer`.
  func tearDown() {
    daemon.stop()
    directory.remove()
  }
}
