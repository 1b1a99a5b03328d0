import Foundation
import Testing

/// A test's database and the daemon serving it, restartable.
public final class DaemonFixture {
  public let scratch: ScratchDirectory
  public private(set) var daemon: Daemon
  public private(set) var starts = 1
  public let ingestKey: String
  public let readKey: String
  /// Flags every start of this fixture's daemon gets.
  public let arguments: [String]
  /// Environment variables every start gets.
  public let environment: [String: String]

  public init(arguments: [String] = [], environment: [String: String] = [:]) throws {
    self.arguments = arguments
    self.environment = environment
    scratch = try ScratchDirectory()
    daemon = try Daemon(
      databasePath: scratch.databasePath, logPath: scratch.path("uptaked-1.log"),
      arguments: arguments, environment: environment)
    ingestKey = try #require(daemon.ingestKey, "the first start prints the ingest key")
    readKey = try #require(daemon.readKey, "the first start prints the read key")
  }

  public var databasePath: String { scratch.databasePath }

  /// The running daemon's address.
  public var baseURL: URL { daemon.baseURL }

  /// Stops the daemon (SIGTERM), until `restart`.
  public func stop() {
    daemon.stop()
  }

  /// Stops the daemon, if it still runs, and starts it again on the same
  /// database: on a new port, or with `samePort` on the one it had, so a
  /// client configured with the address finds it again.
  public func restart(arguments: [String]? = nil, samePort: Bool = false) throws {
    daemon.stop()
    starts += 1
    daemon = try Daemon(
      databasePath: scratch.databasePath, logPath: scratch.path("uptaked-\(starts).log"),
      arguments: arguments ?? self.arguments, port: samePort ? daemon.port : 0,
      environment: environment)
    #expect(daemon.ingestKey == nil, "keys are shown only on the first start")
  }

  /// Stops the daemon and removes the database; for `defer`.
  public func tearDown() {
    daemon.stop()
    scratch.remove()
  }
}
