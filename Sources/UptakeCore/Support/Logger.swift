import Foundation

/// Writes one line per message to stderr: a constant message with the data as
/// key=value metadata, e.g. `level=info msg="batch committed" events=1000`.
public struct Logger: Sendable {
  public enum Level: Int, Sendable, Comparable {
    case debug, info, warning, error

    public var name: String {
      switch self {
      case .debug: "debug"
      case .info: "info"
      case .warning: "warning"
      case .error: "error"
      }
    }

    public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
  }

  public let minimumLevel: Level

  public init(minimumLevel: Level = .info) {
    self.minimumLevel = minimumLevel
  }

  public func log(
    _ level: Level, _ message: StaticString, _ metadata: KeyValuePairs<String, String> = [:]
  ) {
    guard level >= minimumLevel else { return }
    var line =
      "ts=\(Timestamp.formatRFC3339(WallClock.nowMs())) level=\(level.name) msg=\"\(message)\""
    for (key, value) in metadata {
      line += " \(key)=" + Self.quoted(value)
    }
    line += "\n"
    FileHandle.standardError.write(Data(line.utf8))
  }

  /// A value as logfmt wants it: bare when it has no space, quote, equals
  /// sign or control character, else quoted with those escaped, so one
  /// message is always one line (SQL in an error spans several).
  static func quoted(_ value: String) -> String {
    let needsQuotes =
      value.isEmpty
      || value.unicodeScalars.contains {
        $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F
      }
    guard needsQuotes else { return value }
    var quoted = "\""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": quoted += "\\\""
      case "\\": quoted += "\\\\"
      case "\n": quoted += "\\n"
      case "\r": quoted += "\\r"
      case "\t": quoted += "\\t"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        quoted += "\\u{\(String(scalar.value, radix: 16))}"
      default: quoted.unicodeScalars.append(scalar)
      }
    }
    return quoted + "\""
  }

  public func debug(_ message: StaticString, _ metadata: KeyValuePairs<String, String> = [:]) {
    log(.debug, message, metadata)
  }
  public func info(_ message: StaticString, _ metadata: KeyValuePairs<String, String> = [:]) {
    log(.info, message, metadata)
  }
  public func warning(_ message: StaticString, _ metadata: KeyValuePairs<String, String> = [:]) {
    log(.warning, message, metadata)
  }
  public func error(_ message: StaticString, _ metadata: KeyValuePairs<String, String> = [:]) {
    log(.error, message, metadata)
  }
}
