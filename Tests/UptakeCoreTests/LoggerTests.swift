import Testing

@testable import UptakeCore

@Suite("Logger key=value quoting")
struct LoggerTests {
  @Test("plain values stay bare; others are quoted with quotes, backslashes and newlines escaped")
  func quoting() {
    #expect(Logger.quoted("/v1/events") == "/v1/events")
    #expect(Logger.quoted("") == #""""#)
    #expect(Logger.quoted("disk full") == #""disk full""#)
    #expect(Logger.quoted(#"a="b""#) == #""a=\"b\"""#)
    #expect(Logger.quoted("SELECT 1\nFROM t") == #""SELECT 1\nFROM t""#)
    #expect(Logger.quoted(#"C:\x"#) == #""C:\\x""#)
    #expect(Logger.quoted("bell\u{7}") == #""bell\u{7}""#)
  }
}
