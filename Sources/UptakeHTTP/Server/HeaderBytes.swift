/// Header values read as UTF-8 bytes. The spaces around a value and the
/// letter case of a scheme or media type are ASCII, so none of this needs
/// Unicode, and byte scans cost a fraction of Character-wise or Foundation
/// trimming on the ingest path (docs/performance.md).
enum HeaderBytes {
  /// `value` without the spaces and tabs around it.
  static func trimmed(_ value: Substring) -> Substring {
    let bytes = value.utf8
    var start = bytes.startIndex
    var end = bytes.endIndex
    while start < end, isBlank(bytes[start]) { start = bytes.index(after: start) }
    while start < end, isBlank(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
    return Substring(bytes[start..<end])
  }

  /// True when `value`, trimmed, is `lowercase` in any ASCII letter case.
  /// `lowercase` must be lower-case ASCII.
  static func matches(_ value: Substring, _ lowercase: StaticString) -> Bool {
    let bytes = trimmed(value).utf8
    guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
    return lowercase.withUTF8Buffer { wanted in
      zip(bytes, wanted).allSatisfy { byte, wanted in
        byte == wanted
          || (isUpperASCII(byte) && byte | 0x20 == wanted)
      }
    }
  }

  /// A header name as libmicrohttpd hands it over, `length` bytes, its
  /// ASCII letters in lower case: names are ASCII tokens, so no Unicode case mapping (and no
  /// second copy, as `String.lowercased()` makes) is needed.
  static func lowercasedName(_ name: UnsafePointer<CChar>, count length: Int) -> String {
    name.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
      String(unsafeUninitializedCapacity: length) { buffer in
        for index in 0..<length {
          let byte = bytes[index]
          buffer[index] = isUpperASCII(byte) ? byte | 0x20 : byte
        }
        return length
      }
    }
  }

  static func isUpperASCII(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
  }

  private static func isBlank(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
  }
}
