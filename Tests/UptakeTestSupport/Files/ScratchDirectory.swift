import Foundation

/// A directory of one test's own, holding its database and files;
/// `remove()` deletes it.
public final class ScratchDirectory: Sendable {
  public let url: URL

  public init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("uptake-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// The URL of `name` inside the directory.
  public func appending(_ name: String) -> URL { url.appendingPathComponent(name) }

  /// The path of `name` inside the directory.
  public func path(_ name: String) -> String { appending(name).path }

  /// The test's database file.
  public var databasePath: String { path("uptake.db") }

  public func remove() {
    try? FileManager.default.removeItem(at: url)
  }
}
