import Foundation

/// Rows in ClickHouse's RowBinary format, the cheapest it reads: each
/// value in its column's order, strings as their length (LEB128) and bytes,
/// numbers little-endian, a Nullable as a byte (1 for NULL) before its
/// value. Nothing is escaped or parsed as text on either side, which made a
/// spool's block several times cheaper to write and to insert than
/// JSONEachRow (docs/scaling.md).
public struct RowBinary: Sendable {
  public private(set) var data = Data()

  public init() {}

  public mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) {
    length(bytes.count)
    data.append(bytes)
  }

  public mutating func string(_ text: String) {
    var text = text
    text.withUTF8 { string($0) }
  }

  /// A Nullable(String)'s NULL.
  public mutating func null() {
    data.append(1)
  }

  /// A Nullable(String)'s value: the not-NULL byte, then the string.
  public mutating func present(_ bytes: UnsafeBufferPointer<UInt8>) {
    data.append(0)
    string(bytes)
  }

  /// A UInt8, or an Enum8 by its value.
  public mutating func byte(_ value: UInt8) {
    data.append(value)
  }

  public mutating func int64(_ value: Int64) {
    withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
  }

  /// A Date: days since 1970-01-01 as a UInt16 (up to 2149).
  public mutating func date(dayNumber: Int64) {
    let days = UInt16(clamping: dayNumber)
    withUnsafeBytes(of: days.littleEndian) { data.append(contentsOf: $0) }
  }

  /// Rows of another `RowBinary`, whole.
  public mutating func append(_ rows: Data) {
    data.append(rows)
  }

  private mutating func length(_ count: Int) {
    var rest = UInt64(count)
    while rest >= 0x80 {
      data.append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    data.append(UInt8(rest))
  }
}
