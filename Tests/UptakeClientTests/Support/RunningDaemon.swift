import Foundation
import Testing

/// The real `uptaked` on a database of its own, on a port picked at the
/// first start and kept on restarts, so a client configured once finds it
/// again.
final class RunningDaemon {
  let databasePath: String
  private(set) var port = 0
  private var process: Process?
  /// The default app's keys, printed by the first start.
  private(set) var ingestKey = ""
  private(set) var readKey = ""

  init(directory: TestDirectory) throws {
    databasePath = directory.appending("uptake.db").path
    try start()
    ingestKey = try #require(banner.first { $0.hasPrefix("ingest key: ") }?.dropFirst(12))
      .description
    readKey = try #require(banner.first { $0.hasPrefix("read key: ") }?.dropFirst(10))
      .description
  }

  private var banner: [String] = []

  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// Starts the daemon (on port 0 the first time, on the same port after)
  /// and waits for its banner.
  func start() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try BuiltProgram.path("uptaked"))
    process.arguments = ["--db", databasePath, "--listen", "127.0.0.1:\(port)"]
    var environment = ProcessInfo.processInfo.environment
    environment["UPTAKE_DB"] = nil
    environment["UPTAKE_LISTEN"] = nil
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    self.process = process
    var text = ""
    // The first start prints the address, then the keys; a restart only
    // the address.
    while !(text.hasSuffix("\n") && (text.contains("read key: ") || port != 0)) {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      text += String(decoding: chunk, as: UTF8.self)
    }
    banner = text.split(separator: "\n").map(String.init)
    let prefix = "listening on http://127.0.0.1:"
    let announced = try #require(
      banner.first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) },
      "uptaked printed no banner: \(text)")
    if port != 0 { try #require(announced == port) }
    port = announced
  }

  /// Stops the daemon with SIGTERM and waits for it.
  func stop() {
    guard let process, process.isRunning else { return }
    process.terminate()
    process.waitUntilExit()
  }

  /// The number of events of `action` stored for `updateId`.
  func events(_ updateId: String, _ action: String = "impression") throws -> Int {
    let answer = try blockingRequest(
      baseURL.appendingPathComponent("v1/updates/\(updateId)"),
      headers: ["Authorization": "Bearer \(readKey)"])
    guard answer.status == 200 else { return 0 }
    let report = try JSONDecoder().decode(UpdateReport.self, from: answer.body)
    return report.actions[action]?.events ?? 0
  }

  /// The update ids with events in the default range, in the server's order.
  func updateIds() throws -> [String] {
    let answer = try blockingRequest(
      baseURL.appendingPathComponent("v1/updates"),
      headers: ["Authorization": "Bearer \(readKey)"])
    try #require(answer.status == 200)
    return try JSONDecoder().decode(UpdateList.self, from: answer.body).updates.map(\.updateId)
  }

  private struct UpdateReport: Decodable {
    let actions: [String: Counts]

    struct Counts: Decodable {
      let events: Int
    }
  }

  private struct UpdateList: Decodable {
    let updates: [Entry]

    struct Entry: Decodable {
      let updateId: String
    }
  }
}
