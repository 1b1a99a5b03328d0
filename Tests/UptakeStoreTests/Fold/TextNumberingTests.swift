import Testing

@testable import UptakeStore

/// Short texts are looked up by their bytes read as two words
/// (`TextNumbering.number`); every length reads them differently.
@Suite("TextNumbering tells every short text apart")
struct TextNumberingTests {
  /// Every length from empty to past the cache's 16 bytes, and for each,
  /// the text with one byte changed at every position: all distinct.
  static let texts: [[UInt8]] = (0...20).flatMap { length -> [[UInt8]] in
    let base = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
    let changed = (0..<length).map { position -> [UInt8] in
      var text = base
      text[position] ^= 0x20
      return text
    }
    return [base] + changed
  }

  @Test("each text keeps the number it was first given, looked up again in any order")
  func numbersAreStable() {
    var numbering = TextNumbering()
    let first = Self.texts.map { text in text.withUnsafeBufferPointer { numbering.number($0) } }
    #expect(first == Self.texts.indices.map { Int32($0) })
    for index in Self.texts.indices.reversed() + Array(Self.texts.indices) {
      let again = Self.texts[index].withUnsafeBufferPointer { numbering.number($0) }
      #expect(again == Int32(index), "\(Self.texts[index]) got \(again)")
    }
    #expect(numbering.texts == Self.texts.map { String(decoding: $0, as: UTF8.self) })
  }

  @Test("a text read from the end of a larger buffer is the same text")
  func slicesOfABuffer() {
    var numbering = TextNumbering()
    for text in Self.texts { _ = text.withUnsafeBufferPointer { numbering.number($0) } }
    for (index, text) in Self.texts.enumerated() {
      // Bytes before and after it that a wrong load would take in.
      let padded = [UInt8](repeating: 0xFF, count: 9) + text + [UInt8](repeating: 0xFE, count: 9)
      let number = padded.withUnsafeBufferPointer {
        numbering.number(UnsafeBufferPointer(rebasing: $0[9..<(9 + text.count)]))
      }
      #expect(number == Int32(index), "\(text) got \(number)")
    }
  }
}
