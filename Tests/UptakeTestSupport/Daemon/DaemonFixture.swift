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

  public init(arguments: [String] = []) throws {
    self.arguments = arguments
    scratch = try ScratchDirectory()
    daemon = try Daemon(
      databasePath: scratch.databasePath, logPath: scratch.path("uptaked-1.log"),
      arguments: arguments)
    ingestKey = try #require(daemon.ingestKey, "the first start prints the ingest key")
    readKey = try #require(daemon.readKey, "the first start prints the read key")
  }

  public var databasePath: String { scratch.databasePath }

  /// Starts the daemon again on the same database, after it has exited.
  public func restart(arguments: [String]? = nil) throws {
    daemon.stop()
    starts += 1
    daemon = try Daemon(
      databasePath: scratch.databasePath, logPath: scratch.path("uptaked-\(starts).log"),
      arguments: arguments ?? self.arguments)
    #expect(daemon.ingestKey == nil, "keys are shown only on the first start")
  }

  /// Stops the daemon and removes the database; for `defer`.
  public func tearDown() {
    daemon.stop()
    scratch.remove()
  }
}
