/// Rows of ClickHouse's TabSeparated output: a line a row, its fields
/// between tabs, with `\t`, `\n`, `\\` and the like escaped in a field.
///
/// Read byte by byte, with a String made once a field and unescaped only
/// when it holds a backslash: a funnel over the bench's data reads some
/// 270,000 rows, and splitting them with String's own operations (and
/// `contains` through Foundation) took two thirds of its time.
public enum TabSeparatedRows {
  public static func parse(_ text: String) -> [[String]] {
    var rows: [[String]] = []
    forEachRow(in: text) { fields, escaped in rows.append(zip(fields, escaped).map(field)) }
    return rows
  }

  /// Calls `body` with each row's fields as the bytes of the text, still
  /// escaped, and whether each holds an escape (`field(_:_:)` reads one):
  /// for rows read by the hundred thousand, where a String a field cost a
  /// node more than its work on them (the funnel of the bench's busiest
  /// update). The buffers are valid only inside `body`.
  public static func forEachRow(
    in text: String,
    _ body: (_ fields: [UnsafeBufferPointer<UInt8>], _ escaped: [Bool]) -> Void
  ) {
    var text = text
    text.withUTF8 { bytes in
      var fields: [UnsafeBufferPointer<UInt8>] = []
      var escapes: [Bool] = []
      var start = 0
      var escaped = false
      for index in 0...bytes.count {
        let byte = index < bytes.count ? bytes[index] : UInt8(ascii: "\n")
        if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") {
          // The text's end ends a last row without its newline.
          guard index < bytes.count || start < bytes.count else { break }
          fields.append(UnsafeBufferPointer(rebasing: bytes[start..<index]))
          escapes.append(escaped)
          start = index + 1
          escaped = false
          if byte == UInt8(ascii: "\n") {
            body(fields, escapes)
            fields.removeAll(keepingCapacity: true)
            escapes.removeAll(keepingCapacity: true)
          }
        }
      }
    }
  }

  /// A field's bytes as digits: its number, or nil when it is not one.
  public static func unsigned(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
    guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
    var value: UInt64 = 0
    for byte in bytes {
      guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
      let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflowSum) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
      guard !overflowTimes && !overflowSum else { return nil }
      value = sum
    }
    return value
  }

  /// A field's bytes as a signed number (`-` and digits), or nil.
  public static func signed(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
    guard let first = bytes.first else { return nil }
    guard first == UInt8(ascii: "-") else { return unsigned(bytes).flatMap { Int64(exactly: $0) } }
    guard let magnitude = unsigned(UnsafeBufferPointer(rebasing: bytes.dropFirst())),
      magnitude <= UInt64(Int64.max) + 1
    else { return nil }
    return magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
  }

  /// Calls `body` with a field's bytes, unescaped first when it holds an
  /// escape (the buffer is valid only inside `body`).
  public static func withText<Result>(
    _ bytes: UnsafeBufferPointer<UInt8>, _ escaped: Bool,
    _ body: (UnsafeBufferPointer<UInt8>) -> Result
  ) -> Result {
    guard escaped else { return body(bytes) }
    var text = field(bytes, true)
    return text.withUTF8(body)
  }

  /// A field as text: unescaped when it holds an escape.
  public static func field(_ bytes: UnsafeBufferPointer<UInt8>, _ escaped: Bool) -> String {
    guard escaped else { return String(decoding: bytes, as: UTF8.self) }
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count)
    var escaping = false
    for byte in bytes {
      if escaping {
        switch byte {
        case UInt8(ascii: "t"): text.append(UInt8(ascii: "\t"))
        case UInt8(ascii: "n"): text.append(UInt8(ascii: "\n"))
        case UInt8(ascii: "r"): text.append(UInt8(ascii: "\r"))
        case UInt8(ascii: "0"): text.append(0)
        case UInt8(ascii: "b"): text.append(8)
        case UInt8(ascii: "f"): text.append(12)
        default: text.append(byte)
        }
        escaping = false
      } else if byte == UInt8(ascii: "\\") {
        escaping = true
      } else {
        text.append(byte)
      }
    }
    return String(decoding: text, as: UTF8.self)
  }
}
