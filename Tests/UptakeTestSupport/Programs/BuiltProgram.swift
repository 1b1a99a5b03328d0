import Foundation
import Testing

/// The built `uptaked` and `uptake`, found beside the test bundle
/// (`swift build --build-tests` builds them into the same directory).
public enum Binaries {
  static let directory: URL? = {
    var starts: [URL] = []
    if let executable = Bundle.main.executableURL { starts.append(executable) }
    if let first = CommandLine.arguments.first {
      starts.append(
        URL(
          fileURLWithPath: first,
          relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)))
    }
    starts.append(
      URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("x"))
    for start in starts {
      var directory = start.standardizedFileURL.deletingLastPathComponent()
      while directory.path != "/" {
        for candidate in [directory, directory.appendingPathComponent(".build/debug")] {
          if FileManager.default.isExecutableFile(
            atPath: candidate.appendingPathComponent("uptaked").path)
          {
            return candidate
          }
        }
        directory = directory.deletingLastPathComponent()
      }
    }
    return nil
  }()

  /// The path of the built executable `name`.
  public static func path(_ name: String) throws -> String {
    let directory = try #require(
      Binaries.directory, "no built uptaked near the test bundle; run swift build --build-tests")
    return directory.appendingPathComponent(name).path
  }
}

/// A directory of one test's own, holding its database; `remove()` deletes it.
public final class ScratchDirectory {
  public let url: URL

  public init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("uptake-e2e-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

  public var databasePath: String { path("uptake.db") }

  public func remove() {
    try? FileManager.default.removeItem(at: url)
  }
}

/// What a finished `uptake` command printed, and how it exited.
public struct CommandResult {
  public let status: Int32
  public let standardOutput: String
  public let standardError: String

  public init(status: Int32, standardOutput: String, standardError: String) {
    self.status = status
    self.standardOutput = standardOutput
    self.standardError = standardError
  }
}

/// Runs the real `uptake` CLI with `arguments` and waits for it.
public func uptake(_ arguments: [String]) throws -> CommandResult {
  try run(Binaries.path("uptake"), arguments)
}

/// Runs the `sqlite3` shell on the database at `path`, with a busy timeout
/// so it waits for the daemon's writer, and returns what it printed.
public func sqlite3(_ path: String, _ sql: String) throws -> String {
  let result = try run("/usr/bin/sqlite3", ["-cmd", ".timeout 10000", path, sql])
  try #require(result.status == 0, "sqlite3 failed: \(result.standardError)")
  return result.standardOutput
}

/// Runs `executable` with `arguments` and waits for it.
public func run(_ executable: String, _ arguments: [String]) throws -> CommandResult {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  var environment = ProcessInfo.processInfo.environment
  environment["UPTAKE_DB"] = nil
  process.environment = environment
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  // Read both pipes before waiting, so a full pipe cannot stall the command.
  let errorData = ErrorCollector(errors.fileHandleForReading)
  let outputData = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return CommandResult(
    status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
    standardError: String(decoding: errorData.wait(), as: UTF8.self))
}

/// Reads a pipe to its end on a thread of its own.
private final class ErrorCollector: @unchecked Sendable {
  private var data = Data()
  private let done = DispatchSemaphore(value: 0)

  init(_ handle: FileHandle) {
    Thread.detachNewThread { [self] in
      data = handle.readDataToEndOfFile()
      done.signal()
    }
  }

  func wait() -> Data {
    done.wait()
    return data
  }
}

/// Compresses `bytes` with the system's gzip.
public func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
  let input = FileManager.default.temporaryDirectory
    .appendingPathComponent("uptake-gzip-input-\(UUID().uuidString)")
  try Data(bytes).write(to: input)
  defer { try? FileManager.default.removeItem(at: input) }
  return Array(try standardOutput(of: "/bin/gzip", ["-c", "-n", input.path]))
}

/// The bytes `executable` writes to stdout; it must exit 0.
public func standardOutput(of executable: String, _ arguments: [String]) throws -> Data {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  let output = Pipe()
  process.standardOutput = output
  try process.run()
  let data = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  try #require(process.terminationStatus == 0, "\(executable) \(arguments) failed")
  return data
}
