/// Strict UTF-8 well-formedness (Unicode table 3-7): no overlong forms, no
/// encoded surrogates, nothing above U+10FFFF. A lenient decoder would turn
/// such bytes into U+FFFD and the same client id could then be stored under
/// two spellings, so bad bytes are an error instead.
enum UTF8Validation {
  /// The offset of the first byte in `start..<end` that does not begin a
  /// well-formed sequence, or nil when the whole range is well formed.
  static func firstInvalidOffset(
    in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int
  ) -> Int? {
    var i = start
    while i < end {
      let lead = bytes[i]
      if lead < 0x80 {
        i += 1
        continue
      }
      // The allowed range of the second byte depends on the lead byte; that
      // is what rules out overlongs (E0, F0), surrogates (ED) and values
      // above U+10FFFF (F4).
      let length: Int
      var low: UInt8 = 0x80
      var high: UInt8 = 0xBF
      switch lead {
      case 0xC2...0xDF: length = 2
      case 0xE0: length = 3; low = 0xA0
      case 0xE1...0xEC, 0xEE...0xEF: length = 3
      case 0xED: length = 3; high = 0x9F
      case 0xF0: length = 4; low = 0x90
      case 0xF1...0xF3: length = 4
      case 0xF4: length = 4; high = 0x8F
      default: return i
      }
      guard end - i >= length else { return i }
      let second = bytes[i + 1]
      guard second >= low && second <= high else { return i }
      var k = 2
      while k < length {
        guard bytes[i + k] & 0xC0 == 0x80 else { return i }
        k += 1
      }
      i += length
    }
    return nil
  }
}
