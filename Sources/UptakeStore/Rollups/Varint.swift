/// Unsigned LEB128: 7 bits a byte, low first, the high bit set on all but
/// the last; small numbers (dimension set numbers, counts) take a byte or
/// two.
enum Varint {
  static func pack(_ value: UInt64, into bytes: inout [UInt8]) {
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  /// The number at `offset`, moving `offset` past it; nil where the blob
  /// ends inside it or it runs past 64 bits.
  static func unpack(_ blob: UnsafeRawBufferPointer, _ offset: inout Int) -> UInt64? {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while offset < blob.count {
      let byte = blob[offset]
      offset += 1
      value |= UInt64(byte & 0x7f) << shift
      if byte < 0x80 { return value }
      shift += 7
      if shift > 63 { return nil }
    }
    return nil
  }
}
