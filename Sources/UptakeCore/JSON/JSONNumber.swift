/// A JSON number kept as the literal that was written, so that integers of
/// any size (an `updateId` of 20 digits, say) survive without rounding.
public struct JSONNumber: Sendable, Equatable {
  /// The literal exactly as written in the document.
  public let text: String

  /// Made only by the parser, so `text` is always a valid JSON number.
  init(text: String) { self.text = text }

  /// True when the literal has neither a fraction nor an exponent.
  public var isInteger: Bool {
    !text.utf8.contains {
      $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
    }
  }

  /// The nearest `Double`, or nil when the literal is outside its range.
  public var doubleValue: Double? {
    guard let value = Double(text), value.isFinite else { return nil }
    return value
  }
}
