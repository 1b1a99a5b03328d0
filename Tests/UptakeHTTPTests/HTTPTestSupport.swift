import Foundation
import Testing
import UptakeCore
import UptakeHTTP
import UptakeStore

/// A directory of one test's own, holding its database; `remove()` deletes it.
final class ScratchDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("uptake-http-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func path(_ name: String) -> String { url.appendingPathComponent(name).path }

  var databasePath: String { path("uptake.db") }

  /// A new connection to the test's database, migrated.
  func openDatabase() throws -> Database {
    let database = try Database(path: databasePath)
    try Migrator.migrate(database)
    return database
  }

  func remove() {
    try? FileManager.default.removeItem(at: url)
  }
}

/// Compresses `bytes` with the system's gzip, as a client library would.
func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
  let input = FileManager.default.temporaryDirectory
    .appendingPathComponent("uptake-gzip-input-\(UUID().uuidString)")
  try Data(bytes).write(to: input)
  defer { try? FileManager.default.removeItem(at: input) }
  return try run("/bin/gzip", ["-c", "-n", input.path])
}

/// `count` zero bytes, gzip-compressed (about 1 KB per MB): a "zip bomb".
func gzippedZeros(count: Int) throws -> [UInt8] {
  try run("/bin/sh", ["-c", "head -c \(count) /dev/zero | /bin/gzip -c -n"])
}

/// Runs a program and returns its standard output; fails on a non-zero exit.
private func run(_ executable: String, _ arguments: [String]) throws -> [UInt8] {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  let output = Pipe()
  process.standardOutput = output
  try process.run()
  let data = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  try #require(process.terminationStatus == 0, "\(executable) \(arguments) failed")
  return Array(data)
}

extension HandlerOutcome {
  /// The response of a handler that answers at once.
  var immediateResponse: Response? {
    if case .respond(let response) = self { return response }
    return nil
  }
}

extension Response {
  var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// A response given later, from another thread.
final class DeferredAnswer: @unchecked Sendable {
  private let lock = NSLock()
  private let arrived = DispatchSemaphore(value: 0)
  private var response: Response?
  private var calls = 0

  func set(_ response: Response) {
    lock.withLock {
      self.response = response
      calls += 1
    }
    arrived.signal()
  }

  func wait() -> Response {
    guard arrived.wait(timeout: .now() + 10) == .success else {
      Issue.record("no answer within 10 s")
      return Response(status: 0)
    }
    return lock.withLock {
      #expect(calls == 1, "answered exactly once")
      return response ?? Response(status: 0)
    }
  }
}
