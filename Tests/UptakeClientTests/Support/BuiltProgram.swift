import Foundation
import Testing

/// The package's built executables, which `swift build --build-tests` puts
/// beside the test bundle.
enum BuiltProgram {
  private static let directory: URL? = {
    var candidates: [URL] = []
    if let executable = Bundle.main.executableURL {
      candidates.append(executable.deletingLastPathComponent())
    }
    // The package root is three levels above this file.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(root.appendingPathComponent(".build/debug"))
    return candidates.first { directory in
      FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("uptaked").path)
    }
  }()

  /// The path of the built executable `name`.
  static func path(_ name: String) throws -> String {
    let directory = try #require(
      BuiltProgram.directory, "no built uptaked found; run swift build --build-tests")
    return directory.appendingPathComponent(name).path
  }
}

/// A directory of one test's own; `remove()` deletes it.
struct TestDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("uptake-client-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func appending(_ name: String) -> URL { url.appendingPathComponent(name) }

  func remove() { try? FileManager.default.removeItem(at: url) }
}
