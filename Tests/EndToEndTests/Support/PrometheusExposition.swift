import Foundation

/// A strict reader of the Prometheus text exposition format (0.0.4): a
/// line that a scraper could misread, or that only a lenient one would
/// take, is an error naming the line. Stricter than Prometheus itself on
/// purpose: a sample's series must be unique and a label named once.
struct PrometheusExposition {
  struct Sample: Hashable {
    let name: String
    let labels: [String: String]
    let value: Double
  }

  struct Problem: Error, CustomStringConvertible {
    let lineNumber: Int
    let line: String
    let reason: String

    var description: String { "line \(lineNumber): \(reason): \(line.debugDescription)" }
  }

  private(set) var samples: [Sample] = []

  init(_ text: String) throws(Problem) {
    guard text.hasSuffix("\n") else {
      throw Problem(lineNumber: 0, line: String(text.suffix(40)), reason: "no final newline")
    }
    var series = Set<String>()
    for (offset, line) in text.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      var reader = LineReader(Array(line.utf8))
      func problem(_ reason: String) -> Problem {
        Problem(lineNumber: offset + 1, line: String(line), reason: reason)
      }
      if reader.bytes.isEmpty { continue }
      if reader.bytes.first == UInt8(ascii: "#") {
        try Self.checkComment(&reader, problem)
        continue
      }
      guard let name = reader.metricName() else { throw problem("no metric name") }
      var labels: [String: String] = [:]
      if reader.take("{") {
        while !reader.take("}") {
          guard let label = reader.labelName() else { throw problem("bad label name") }
          guard reader.take("="), reader.take("\"") else { throw problem("label without =\"") }
          guard let value = reader.quotedValue() else { throw problem("bad label value") }
          guard labels.updateValue(value, forKey: label) == nil else {
            throw problem("label \(label) twice")
          }
          if !reader.take(",") {
            guard reader.take("}") else { throw problem("label not followed by , or }") }
            break
          }
        }
      }
      guard reader.take(" ") else { throw problem("no space before the value") }
      let fields = reader.rest.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
      guard (1...2).contains(fields.count), let value = Self.float(fields[0]) else {
        throw problem("bad value")
      }
      if fields.count == 2 {
        guard Int64(String(decoding: fields[1], as: UTF8.self)) != nil else {
          throw problem("bad timestamp")
        }
      }
      let key = name + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined()
      guard series.insert(key).inserted else { throw problem("series repeated") }
      samples.append(Sample(name: name, labels: labels, value: value))
    }
  }

  /// The values a label takes across the samples of `metric`.
  func values(of label: String, in metric: String) -> Set<String> {
    Set(samples.filter { $0.name == metric }.compactMap { $0.labels[label] })
  }

  /// `# HELP name text`, `# TYPE name type`, or any other comment.
  private static func checkComment(_ reader: inout LineReader, _ problem: (String) -> Problem)
    throws(Problem)
  {
    _ = reader.take("#")
    guard reader.take(" ") else { return }
    let keyword = reader.word()
    guard keyword == "HELP" || keyword == "TYPE" else { return }
    guard reader.take(" "), let name = reader.metricName(), !name.isEmpty else {
      throw problem("\(keyword) without a metric name")
    }
    if keyword == "TYPE" {
      guard reader.take(" "),
        ["counter", "gauge", "histogram", "summary", "untyped"].contains(reader.word()),
        reader.rest.isEmpty
      else { throw problem("bad TYPE") }
      return
    }
    guard reader.rest.isEmpty || reader.take(" ") else { throw problem("bad HELP") }
    var escaped = false
    for byte in reader.rest {
      if escaped {
        guard byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "n") else {
          throw problem("bad escape in HELP")
        }
        escaped = false
      } else if byte == UInt8(ascii: "\\") {
        escaped = true
      }
    }
    guard !escaped else { throw problem("HELP ends in a backslash") }
  }

  /// A Go `ParseFloat` number as the format allows: decimal, `+Inf`,
  /// `-Inf` or `NaN`.
  private static func float(_ bytes: ArraySlice<UInt8>) -> Double? {
    let text = String(decoding: bytes, as: UTF8.self)
    switch text {
    case "+Inf", "Inf": return .infinity
    case "-Inf": return -.infinity
    case "NaN": return .nan
    default: break
    }
    guard text.wholeMatch(of: /[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?/) != nil else {
      return nil
    }
    return Double(text)
  }
}

/// One line's bytes, read from the front.
private struct LineReader {
  let bytes: [UInt8]
  var position = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var rest: ArraySlice<UInt8> { bytes[position...] }

  mutating func take(_ character: Unicode.Scalar) -> Bool {
    guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
    position += 1
    return true
  }

  /// `[a-zA-Z_:][a-zA-Z0-9_:]*`
  mutating func metricName() -> String? {
    identifier(allowingColon: true)
  }

  /// `[a-zA-Z_][a-zA-Z0-9_]*`
  mutating func labelName() -> String? {
    identifier(allowingColon: false)
  }

  /// Everything up to the next space.
  mutating func word() -> String {
    let start = position
    while position < bytes.count, bytes[position] != UInt8(ascii: " ") { position += 1 }
    return String(decoding: bytes[start..<position], as: UTF8.self)
  }

  /// The rest of a `"…"` label value, the opening quote already taken:
  /// UTF-8 with only `\\`, `\"` and `\n` escaped, no raw newline or quote.
  mutating func quotedValue() -> String? {
    var value: [UInt8] = []
    while position < bytes.count {
      let byte = bytes[position]
      position += 1
      switch byte {
      case UInt8(ascii: "\""):
        return String(validating: value, as: UTF8.self)
      case UInt8(ascii: "\\"):
        guard position < bytes.count else { return nil }
        let escaped = bytes[position]
        position += 1
        switch escaped {
        case UInt8(ascii: "\\"), UInt8(ascii: "\""): value.append(escaped)
        case UInt8(ascii: "n"): value.append(UInt8(ascii: "\n"))
        default: return nil
        }
      default:
        value.append(byte)
      }
    }
    return nil
  }

  private mutating func identifier(allowingColon: Bool) -> String? {
    let start = position
    while position < bytes.count {
      let byte = bytes[position]
      let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
      let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
      let allowed =
        isLetter || byte == UInt8(ascii: "_") || (allowingColon && byte == UInt8(ascii: ":"))
        || (isDigit && position > start)
      guard allowed else { break }
      position += 1
    }
    return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
  }
}
