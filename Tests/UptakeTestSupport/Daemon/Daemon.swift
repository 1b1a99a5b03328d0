import Foundation
import Testing

/// A running `uptaked` on a port of its own, started with
/// `--db PATH --listen 127.0.0.1:0`.
public final class Daemon {
  public let process: Process
  public let port: Int
  public let baseURL: URL
  /// The default app's keys, printed only by the start that created it.
  public let ingestKey: String?
  public let readKey: String?
  private let logPath: String

  /// Starts the daemon with `arguments` after its database and address, and
  /// waits for its banner.
  public init(databasePath: String, logPath: String, arguments: [String] = []) throws {
    self.logPath = logPath
    process = Process()
    process.executableURL = URL(fileURLWithPath: try Binaries.path("uptaked"))
    process.arguments = ["--db", databasePath, "--listen", "127.0.0.1:0"] + arguments
    var environment = ProcessInfo.processInfo.environment
    environment["UPTAKE_DB"] = nil
    environment["UPTAKE_LISTEN"] = nil
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
    try process.run()

    var banner = ""
    let stdout = output.fileHandleForReading
    // The banner is one write; keep reading until its last line is in, or
    // the daemon exits (EOF) without one.
    while !Daemon.bannerIsComplete(banner) {
      let chunk = stdout.availableData
      if chunk.isEmpty { break }
      banner += String(decoding: chunk, as: UTF8.self)
    }
    let lines = banner.split(separator: "\n").map(String.init)
    guard let first = lines.first, first.hasPrefix("listening on http://127.0.0.1:"),
      let port = Int(first.dropFirst("listening on http://127.0.0.1:".count))
    else {
      process.terminate()
      process.waitUntilExit()
      let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
      throw DaemonError.noBanner(stdout: banner, stderr: log)
    }
    self.port = port
    baseURL = URL(string: "http://127.0.0.1:\(port)")!
    ingestKey = lines.first { $0.hasPrefix("ingest key: ") }.map { String($0.dropFirst(12)) }
    readKey = lines.first { $0.hasPrefix("read key: ") }.map { String($0.dropFirst(10)) }
  }

  /// A first start prints the keys after the address; a restart only the address.
  private static func bannerIsComplete(_ banner: String) -> Bool {
    guard banner.hasPrefix("listening on "), banner.hasSuffix("\n") else { return false }
    return banner.contains("read key: ") || !banner.contains("created app")
  }

  /// The URL of `path` (which may carry a query) on this daemon.
  public func url(_ path: String) -> URL {
    URL(string: "http://127.0.0.1:\(port)\(path)")!
  }

  /// Sends SIGTERM and waits for the exit; returns the exit status, or nil
  /// when the daemon died of a signal or did not exit within `timeout`.
  public func terminate(timeout: TimeInterval = 20) -> Int32? {
    guard process.isRunning else { return exitStatus }
    kill(process.processIdentifier, SIGTERM)
    return waitForExit(timeout: timeout)
  }

  /// Kills the daemon with SIGKILL, as a crash or the OOM killer would.
  public func killHard() {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    _ = waitForExit(timeout: 10)
  }

  /// Makes sure the daemon is gone; for `defer`.
  public func stop() {
    if process.isRunning && terminate(timeout: 10) == nil { killHard() }
  }

  /// What the daemon wrote to stderr so far.
  public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  private var exitStatus: Int32? {
    process.terminationReason == .exit ? process.terminationStatus : nil
  }

  private func waitForExit(timeout: TimeInterval) -> Int32? {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    guard !process.isRunning else { return nil }
    process.waitUntilExit()
    return exitStatus
  }
}

public enum DaemonError: Error, CustomStringConvertible {
  case noBanner(stdout: String, stderr: String)

  public var description: String {
    switch self {
    case .noBanner(let stdout, let stderr):
      "uptaked printed no banner; stdout: \(stdout) stderr: \(stderr)"
    }
  }
}

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
