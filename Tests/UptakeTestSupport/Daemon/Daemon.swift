import Foundation

/// A running `uptaked`, started with `--db PATH --listen 127.0.0.1:PORT`
/// (port 0, a free one, unless given). Every wait is bounded: a start that
/// prints no banner in time (a recovery that hangs) is killed and throws.
public final class Daemon {
  public let process: Process
  public let port: Int
  /// The default app's keys, printed only by the start that created it.
  public let ingestKey: String?
  public let readKey: String?
  private let logPath: String

  /// Starts the daemon with `arguments` after its database and address,
  /// and `environment` added to the test's (without its `UPTAKE_`
  /// variables), its stderr going to `logPath`, and waits at most
  /// `timeout` seconds for its banner.
  public init(
    databasePath: String, logPath: String, arguments: [String] = [], port: Int = 0,
    environment: [String: String] = [:], timeout: TimeInterval = 20
  ) throws {
    self.logPath = logPath
    process = Process()
    process.executableURL = URL(fileURLWithPath: try BuiltProgram.path("uptaked"))
    process.arguments = ["--db", databasePath, "--listen", "127.0.0.1:\(port)"] + arguments
    process.environment = programEnvironment().merging(environment) { _, added in added }
    let output = Pipe()
    process.standardOutput = output
    _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
    process.standardError = log
    try process.run()
    try? log.close()

    let text = BannerReader(output.fileHandleForReading).wait(timeout: timeout)
    let lines = text.split(separator: "\n").map(String.init)
    let prefix = "listening on http://127.0.0.1:"
    guard let first = lines.first, first.hasPrefix(prefix),
      let announced = Int(first.dropFirst(prefix.count)), port == 0 || announced == port
    else {
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
      process.waitUntilExit()
      throw DaemonError.noBanner(
        seconds: Int(timeout), stdout: text,
        stderr: (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")
    }
    self.port = announced
    ingestKey = lines.first { $0.hasPrefix("ingest key: ") }.map { String($0.dropFirst(12)) }
    readKey = lines.first { $0.hasPrefix("read key: ") }.map { String($0.dropFirst(10)) }
  }

  /// `http://127.0.0.1:PORT`.
  public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// The URL of `path` (which may carry a query) on this daemon.
  public func url(_ path: String) -> URL {
    URL(string: "http://127.0.0.1:\(port)\(path)")!
  }

  /// Sends SIGTERM and waits for the exit; returns the exit status, or nil
  /// when the daemon died of a signal or did not exit within `timeout`.
  public func terminate(timeout: TimeInterval = 20) -> Int32? {
    guard process.isRunning else { return exitStatus }
    kill(process.processIdentifier, SIGTERM)
    return waitForExit(timeout: timeout) ? exitStatus : nil
  }

  /// Kills the daemon with SIGKILL, as a crash, the OOM killer or a power
  /// cut would stop it.
  public func killHard() {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    _ = waitForExit(timeout: 10)
  }

  /// Makes sure the daemon is gone; for `defer`.
  public func stop() {
    if process.isRunning && terminate(timeout: 10) == nil { killHard() }
  }

  /// Whether the daemon has exited because of SIGKILL.
  public var diedOfSIGKILL: Bool {
    !process.isRunning && process.terminationReason == .uncaughtSignal
      && process.terminationStatus == SIGKILL
  }

  /// What the daemon wrote to stderr so far.
  public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  private var exitStatus: Int32? {
    process.terminationReason == .exit ? process.terminationStatus : nil
  }

  /// False when the daemon still runs after `timeout` seconds.
  private func waitForExit(timeout: TimeInterval) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
    guard !process.isRunning else { return false }
    process.waitUntilExit()
    return true
  }
}

public enum DaemonError: Error, CustomStringConvertible {
  case noBanner(seconds: Int, stdout: String, stderr: String)

  public var description: String {
    switch self {
    case .noBanner(let seconds, let stdout, let stderr):
      let tail = stderr.count <= 3000 ? stderr : "…" + String(stderr.suffix(3000))
      return "uptaked printed no banner within \(seconds) s; stdout: \(stdout) stderr: \(tail)"
    }
  }
}

/// Reads the daemon's stdout on a thread of its own, to its end (so the
/// daemon never blocks on a full pipe), and signals once the banner is in.
private final class BannerReader: @unchecked Sendable {
  private let lock = NSLock()
  private var data = Data()
  private let ready = DispatchSemaphore(value: 0)

  init(_ handle: FileHandle) {
    Thread.detachNewThread { [self] in
      var signalled = false
      while true {
        let chunk = handle.availableData
        if chunk.isEmpty { break }
        let complete = lock.withLock {
          data.append(chunk)
          return Self.isComplete(String(decoding: data, as: UTF8.self))
        }
        if complete && !signalled {
          signalled = true
          ready.signal()
        }
      }
      if !signalled { ready.signal() }
    }
  }

  /// A first start prints the address, that it created the default app,
  /// and its keys; a restart only the address. The banner is one write.
  private static func isComplete(_ text: String) -> Bool {
    guard text.hasPrefix("listening on "), text.hasSuffix("\n") else { return false }
    return text.contains("read key: ") || !text.contains("created app")
  }

  /// What the daemon printed once the banner is complete, it exited, or
  /// `timeout` seconds passed.
  func wait(timeout: TimeInterval) -> String {
    _ = ready.wait(timeout: .now() + timeout)
    return lock.withLock { String(decoding: data, as: UTF8.self) }
  }
}
