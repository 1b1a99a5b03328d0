import Foundation

/// What a finished program printed, and how it exited.
public struct CommandResult: Sendable {
  /// The exit status; the signal's number when a signal ended the program,
  /// and -1 when it outlived its time and was killed.
  public let status: Int32
  public let outputData: Data
  public let errorData: Data

  public var standardOutput: String { String(decoding: outputData, as: UTF8.self) }
  public var standardError: String { String(decoding: errorData, as: UTF8.self) }
}

/// Runs `executable` with `arguments` and waits for it, at most `timeout`
/// seconds; a program that takes longer is killed and answers status -1.
/// `input` becomes its standard input (none when nil). It starts without
/// the caller's `UPTAKE_` variables, so a developer's own settings never
/// reach a test's programs.
public func run(
  _ executable: String, _ arguments: [String], input: Data? = nil,
  timeout: TimeInterval = 120
) throws -> CommandResult {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  process.environment = programEnvironment()
  // A file rather than a pipe: the program reads it at its own pace, and
  // no thread of ours has to feed it.
  var inputFile: URL?
  defer { if let inputFile { try? FileManager.default.removeItem(at: inputFile) } }
  if let input {
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("uptake-tests-input-\(UUID().uuidString)")
    try input.write(to: file)
    inputFile = file
    process.standardInput = try FileHandle(forReadingFrom: file)
  } else {
    process.standardInput = FileHandle.nullDevice
  }
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  let exited = DispatchSemaphore(value: 0)
  process.terminationHandler = { _ in exited.signal() }
  try process.run()
  // Both pipes are read while the program runs, so a full one cannot stall it.
  let outputData = PipeDrain(output.fileHandleForReading)
  let errorData = PipeDrain(errors.fileHandleForReading)
  if exited.wait(timeout: .now() + timeout) == .timedOut {
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    return CommandResult(
      status: -1, outputData: outputData.wait(),
      errorData: Data("killed after \(Int(timeout)) s".utf8))
  }
  process.waitUntilExit()
  return CommandResult(
    status: process.terminationStatus, outputData: outputData.wait(),
    errorData: errorData.wait())
}

/// This process's environment without the `UPTAKE_` variables, for the
/// programs a test starts.
func programEnvironment() -> [String: String] {
  ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("UPTAKE_") }
}

/// Reads a pipe to its end on a thread of its own.
final class PipeDrain: @unchecked Sendable {
  private let lock = NSLock()
  private var data = Data()
  private let done = DispatchSemaphore(value: 0)

  init(_ handle: FileHandle) {
    Thread.detachNewThread { [self] in
      let all = handle.readDataToEndOfFile()
      lock.withLock { data = all }
      done.signal()
    }
  }

  /// The pipe's bytes; at most `timeout` seconds for the writer to close
  /// it (a program's own child may hold it open after the program exits).
  func wait(timeout: TimeInterval = 10) -> Data {
    _ = done.wait(timeout: .now() + timeout)
    return lock.withLock { data }
  }
}
