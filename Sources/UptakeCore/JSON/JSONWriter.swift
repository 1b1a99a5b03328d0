/// Builds JSON text directly, for responses and CLI output. Reports are rows
/// of known shape, so writing them field by field is simpler and faster than
/// building a tree first.
public struct JSONWriter {
  public private(set) var bytes: [UInt8] = []
  private var needsComma: [Bool] = [false]

  public init() {}

  public var text: String { String(decoding: bytes, as: UTF8.self) }

  public mutating func beginObject() {
    separate()
    bytes.append(UInt8(ascii: "{"))
    needsComma.append(false)
  }

  public mutating func endObject() {
    needsComma.removeLast()
    bytes.append(UInt8(ascii: "}"))
  }

  public mutating func beginArray() {
    separate()
    bytes.append(UInt8(ascii: "["))
    needsComma.append(false)
  }

  public mutating func endArray() {
    needsComma.removeLast()
    bytes.append(UInt8(ascii: "]"))
  }

  /// Writes an object member's name; the next value written is its value.
  public mutating func key(_ name: String) {
    separate()
    appendQuoted(name)
    bytes.append(UInt8(ascii: ":"))
    needsComma[needsComma.count - 1] = false
  }

  public mutating func value(_ string: String) {
    separate()
    appendQuoted(string)
  }

  public mutating func value(_ number: Int) {
    separate()
    bytes.append(contentsOf: String(number).utf8)
  }

  public mutating func value(_ number: Int64) {
    separate()
    bytes.append(contentsOf: String(number).utf8)
  }

  /// Writes a fraction rounded to 6 decimal places, or null.
  public mutating func value(_ number: Double?) {
    separate()
    guard let number, number.isFinite else {
      bytes.append(contentsOf: "null".utf8)
      return
    }
    let rounded = (number * 1_000_000).rounded() / 1_000_000
    var text = "\(rounded)"
    if text.hasSuffix(".0") { text.removeLast(2) }
    bytes.append(contentsOf: text.utf8)
  }

  public mutating func value(_ flag: Bool) {
    separate()
    bytes.append(contentsOf: (flag ? "true" : "false").utf8)
  }

  public mutating func null() {
    separate()
    bytes.append(contentsOf: "null".utf8)
  }

  /// Writes `name: value` for the common case of a string member.
  public mutating func member(_ name: String, _ string: String) {
    key(name)
    value(string)
  }

  public mutating func member(_ name: String, _ number: Int) {
    key(name)
    value(number)
  }

  public mutating func member(_ name: String, _ number: Double?) {
    key(name)
    value(number)
  }

  private mutating func separate() {
    if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
    needsComma[needsComma.count - 1] = true
  }

  private mutating func appendQuoted(_ string: String) {
    bytes.append(UInt8(ascii: "\""))
    var string = string
    string.withUTF8 { utf8 in
      // Most texts need no escape: copied whole, where appended byte by
      // byte they were a tenth of a grouped report of a few thousand rows.
      if !utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0x22 || $0 == 0x5C }) {
        bytes.append(contentsOf: utf8)
      } else {
        appendEscaped(utf8)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
    for byte in utf8 {
      switch byte {
      case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
      case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
      case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
      case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
      case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
      case 0..<0x20, 0x7F:
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(contentsOf: [
          UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
          hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
        ])
      default: bytes.append(byte)
      }
    }
  }
}
