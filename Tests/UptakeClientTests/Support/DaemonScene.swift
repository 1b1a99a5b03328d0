import Foundation
import UptakeClient
import UptakeTestSupport

/// A test's own directory with a running uptaked in it, and a client storage
/// directory beside its database.
final class DaemonScene {
  let daemon: DaemonFixture

  init() throws {
    daemon = try DaemonFixture()
  }

  /// The scene's directory, which holds the daemon's database.
  var directory: ScratchDirectory { daemon.scratch }

  /// Where the scene's clients keep their queue and install id.
  var storage: URL { directory.appending("client") }

  /// A client of the daemon with its ingest key, on the scene's storage.
  func client(limits: UptakeLimits = .forTests()) throws -> UptakeClient {
    try testClient(daemon.baseURL, key: daemon.ingestKey, storage: storage, limits: limits)
  }

  /// Stops the daemon and removes the directory; for `defer`.
  func tearDown() {
    daemon.tearDown()
  }
}
