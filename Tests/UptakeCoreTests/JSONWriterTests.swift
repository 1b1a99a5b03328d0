import Foundation
import Testing
import UptakeCore

@Suite("JSONWriter: texts quoted and escaped")
struct JSONWriterTests {
  static func written(_ text: String) -> String {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key(text)
    writer.value(text)
    writer.endObject()
    return writer.text
  }

  @Test("a text needing no escape is copied whole")
  func plain() {
    #expect(Self.written("2.1.0") == #"{"2.1.0":"2.1.0"}"#)
    #expect(Self.written("") == #"{"":""}"#)
    #expect(Self.written("ünïcødé ✓") == #"{"ünïcødé ✓":"ünïcødé ✓"}"#)
  }

  @Test("quotes, backslashes and control characters are escaped, anywhere in the text")
  func escaped() {
    #expect(Self.written("a\"b") == #"{"a\"b":"a\"b"}"#)
    #expect(Self.written("\\") == #"{"\\":"\\"}"#)
    #expect(Self.written("x\ny\r\tz") == #"{"x\ny\r\tz":"x\ny\r\tz"}"#)
    #expect(
      Self.written("\u{1}\u{1F}\u{7F}end") == #"{"\u0001\u001f\u007fend":"\u0001\u001f\u007fend"}"#)
  }

  @Test("what is written parses back to the same text")
  func roundTrip() throws {
    let texts = ["plain", "a\"b\\c", "line\nbreak", "\u{0}nul", "mixed ✓ \u{7F} \"q\""]
    for text in texts {
      let parsed = try JSONSerialization.jsonObject(with: Data(Self.written(text).utf8))
      #expect((parsed as? [String: String]) == [text: text], "\(text.debugDescription)")
    }
  }
}
