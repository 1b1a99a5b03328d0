import Foundation
import Testing

/// Compresses `bytes` with the system's gzip, as a client would.
public func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
  Array(try standardOutput(of: "/bin/gzip", ["-c", "-n"], input: Data(bytes)))
}

/// `count` zero bytes, compressed by the system's gzip at its best ratio
/// (about 1000:1): a "zip bomb".
public func gzippedZeros(count: Int) throws -> [UInt8] {
  Array(try standardOutput(of: "/bin/sh", ["-c", "head -c \(count) /dev/zero | gzip -9 -c -n"]))
}

/// Runs the `sqlite3` shell on the database at `path`, with a busy timeout
/// so it waits for the daemon's writer, and returns what it printed.
public func sqlite3(_ path: String, _ sql: String) throws -> String {
  let result = try run("/usr/bin/sqlite3", ["-cmd", ".timeout 10000", path, sql])
  try #require(result.status == 0, "sqlite3 failed: \(result.standardError)")
  return result.standardOutput
}

/// The bytes `executable` writes to stdout; it must exit 0.
public func standardOutput(of executable: String, _ arguments: [String], input: Data? = nil)
  throws -> Data
{
  let result = try run(executable, arguments, input: input)
  try #require(result.status == 0, "\(executable) \(arguments) failed: \(result.standardError)")
  return result.outputData
}
