import Foundation
import Testing

/// One event of an ingest body or an import line, as JSON text, with every
/// field the grouped reports can group by; nil fields are left out.
public func fullEventJSON(
  id: String? = nil, updateId: String = "u1", action: String = "impression",
  appVersion: String = "1.0.0", installId: String? = nil, timestamp: String? = nil,
  platform: String? = nil, osVersion: String? = nil, test: Bool? = nil
) -> String {
  var members: [String] = []
  if let id { members.append("\"id\":\"\(id)\"") }
  members += [
    "\"updateId\":\"\(updateId)\"", "\"action\":\"\(action)\"", "\"appVersion\":\"\(appVersion)\"",
  ]
  if let installId { members.append("\"installId\":\"\(installId)\"") }
  if let timestamp { members.append("\"timestamp\":\"\(timestamp)\"") }
  if let platform { members.append("\"platform\":\"\(platform)\"") }
  if let osVersion { members.append("\"osVersion\":\"\(osVersion)\"") }
  if let test { members.append("\"test\":\(test)") }
  return "{" + members.joined(separator: ",") + "}"
}

extension DaemonFixture {
  /// Posts `events` with the ingest key and requires every one accepted.
  public func post(_ events: [String]) throws {
    let response = try HTTPClient().postJSON(
      daemon.url("/v1/events"), key: ingestKey, batchJSON(events))
    try #require(
      response.text == #"{"accepted":\#(events.count),"duplicates":0,"rejected":[]}"#,
      "\(response.status) \(response.text)")
  }

  /// GETs a report with the read key.
  public func report(_ pathAndQuery: String, headers: [String: String] = [:]) throws -> HTTPResponse
  {
    try HTTPClient().get(daemon.url(pathAndQuery), key: readKey, headers: headers)
  }
}

/// Runs the real `uptake` CLI with `input` as its standard input.
public func uptake(_ arguments: [String], input: Data) throws -> CommandResult {
  let inputFile = FileManager.default.temporaryDirectory
    .appendingPathComponent("uptake-stdin-\(UUID().uuidString)")
  try input.write(to: inputFile)
  defer { try? FileManager.default.removeItem(at: inputFile) }
  let process = Process()
  process.executableURL = URL(fileURLWithPath: try Binaries.path("uptake"))
  process.arguments = arguments
  var environment = ProcessInfo.processInfo.environment
  environment["UPTAKE_DB"] = nil
  process.environment = environment
  process.standardInput = try FileHandle(forReadingFrom: inputFile)
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  // Small outputs only: both pipes fit their buffers while the command runs.
  let outputData = output.fileHandleForReading.readDataToEndOfFile()
  let errorData = errors.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return CommandResult(
    status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
    standardError: String(decoding: errorData, as: UTF8.self))
}
