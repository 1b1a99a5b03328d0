import Foundation

/// A program the test runs and may kill with SIGKILL from another thread,
/// as the OS kills an app.
public final class ChildProcess: @unchecked Sendable {
  private let lock = NSLock()
  private var process: Process?

  public init() {}

  /// Runs `path` with `arguments` to its end; its exit status, or nil when a
  /// signal ended it. The wait is on a thread of its own: Swift Testing's
  /// few pool threads are left to the tests' async work.
  public func run(_ path: String, _ arguments: [String]) async throws -> Int32? {
    try await withCheckedThrowingContinuation { continuation in
      Thread.detachNewThread {
        continuation.resume(with: Result { try self.runToEnd(path, arguments) })
      }
    }
  }

  private func runToEnd(_ path: String, _ arguments: [String]) throws -> Int32? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = programEnvironment()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try lock.withLock {
      try process.run()
      self.process = process
    }
    process.waitUntilExit()
    return process.terminationReason == .exit ? process.terminationStatus : nil
  }

  /// SIGKILL, then waits until the process is gone, so that nothing it
  /// would do afterwards can happen.
  public func kill() {
    // A process not yet started or already reaped is left alone: its pid
    // may belong to another process by now.
    guard let process = lock.withLock({ self.process }), process.isRunning else { return }
    Foundation.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }
}
