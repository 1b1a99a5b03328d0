import Testing

@testable import UptakeHTTP

@Suite("PercentDecoding: %HH decoded to bytes, with their length")
struct PercentDecodingTests {
  private func decode(_ text: String) -> String {
    Array(text.utf8).withUnsafeBufferPointer { PercentDecoding.decode($0) }
  }

  @Test(
    "escapes decode in either case; a % without two hex digits stays as sent",
    arguments: [
      ("/v1/events", "/v1/events"), ("/v1/updates/a%2Eb", "/v1/updates/a.b"),
      ("%41%62%2f%2F", "Ab//"), ("100%", "100%"), ("%4", "%4"), ("%zz%41", "%zzA"),
      ("%%41", "%A"), ("%C3%A9t%C3%A9", "été"), ("%FF", "\u{FFFD}"), ("a+b", "a+b"),
    ])
  func decodes(sent: String, decoded: String) {
    #expect(decode(sent) == decoded)
  }

  @Test("a decoded NUL or control character stays in the text, where a C string ended")
  func keepsControls() {
    #expect(decode("/v1/updates/a%00b") == "/v1/updates/a\u{0}b")
    #expect(decode("%0D%0Ax%7F") == "\r\nx\u{7F}")
    #expect(decode("/v1/updates/a%00b").utf8.count == 15)
  }
}
