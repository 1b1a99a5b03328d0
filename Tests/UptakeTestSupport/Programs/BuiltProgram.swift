import Foundation
import Testing

/// The package's built executables, which `swift build --build-tests` puts
/// beside the test bundle.
public enum BuiltProgram {
  /// The first directory holding a built `uptaked`, looking from the test
  /// bundle, the command that started it, the working directory and this
  /// file upwards, in each directory and in its `.build/debug`.
  private static let directory: URL? = {
    let currentDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    var starts: [URL] = []
    if let executable = Bundle.main.executableURL { starts.append(executable) }
    if let first = CommandLine.arguments.first {
      starts.append(URL(fileURLWithPath: first, relativeTo: currentDirectory))
    }
    starts.append(currentDirectory.appendingPathComponent("x"))
    starts.append(URL(fileURLWithPath: #filePath))
    for start in starts {
      var directory = start.standardizedFileURL.deletingLastPathComponent()
      while directory.path != "/" {
        for candidate in [directory, directory.appendingPathComponent(".build/debug")] {
          let uptaked = candidate.appendingPathComponent("uptaked").path
          if FileManager.default.isExecutableFile(atPath: uptaked) { return candidate }
        }
        directory = directory.deletingLastPathComponent()
      }
    }
    return nil
  }()

  /// The path of the built executable `name`.
  public static func path(_ name: String) throws -> String {
    let directory = try #require(
      BuiltProgram.directory, "no built uptaked found; run swift build --build-tests")
    return directory.appendingPathComponent(name).path
  }
}

/// Runs the built `uptake` CLI with `arguments`, and `input` as its
/// standard input, and waits for it.
public func uptake(_ arguments: [String], input: Data? = nil) throws -> CommandResult {
  try run(BuiltProgram.path("uptake"), arguments, input: input)
}
