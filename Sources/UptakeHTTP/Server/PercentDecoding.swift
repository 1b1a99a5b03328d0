import UptakeCore

/// The path and query arguments of a request, `%HH` escapes decoded here
/// rather than by libmicrohttpd. Its decoder writes into a C string, which
/// ends at a decoded NUL: `/v1/updates/a%00b` reached the router as
/// `/v1/updates/a`. Decoded with its length, the NUL stays in the text, to
/// be refused (`RequestHead.controlCharacterRefusal`).
enum PercentDecoding {
  /// `bytes` with every `%HH` decoded; a `%` without two hex digits after
  /// it stays as sent, as libmicrohttpd's decoder left it. Bytes that are
  /// not UTF-8 become U+FFFD, as `String(cString:)` made them.
  static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    // Most paths (every ingest request's) hold no escape: one scan, one copy.
    guard let firstPercent = bytes.firstIndex(of: UInt8(ascii: "%")) else {
      return String(decoding: bytes, as: UTF8.self)
    }
    var decoded = Array(bytes[..<firstPercent])
    decoded.reserveCapacity(bytes.count)
    var index = firstPercent
    while index < bytes.count {
      if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
        let high = Hex.value(of: bytes[index + 1]), let low = Hex.value(of: bytes[index + 2])
      {
        decoded.append(high << 4 | low)
        index += 3
      } else {
        decoded.append(bytes[index])
        index += 1
      }
    }
    return String(decoding: decoded, as: UTF8.self)
  }

  /// `count` bytes at `text`, decoded.
  static func decode(_ text: UnsafePointer<CChar>, count: Int) -> String {
    text.withMemoryRebound(to: UInt8.self, capacity: count) {
      decode(UnsafeBufferPointer(start: $0, count: count))
    }
  }
}
