import Testing

@testable import UptakeHTTP

@Suite("Header values read from their bytes: trimming, ASCII case, bearer tokens")
struct HeaderBytesTests {
  @Test(
    "the bearer token is what follows the scheme, spaces around it dropped",
    arguments: [
      ("Bearer upi_abc", "upi_abc"), ("bearer upi_abc", "upi_abc"),
      ("BEARER   upi_abc  ", "upi_abc"),
      ("  Bearer upi_abc", "upi_abc"), ("Bearer\tupi_abc", nil), ("Bearer ", nil), ("Bearer", nil),
      ("Basic dXNlcjpwYXNz", nil), ("Bearerx upi_abc", nil), ("Béarer upi_abc", nil),
      ("Bearer upi_é ", "upi_é"),
    ] as [(String, String?)])
  func bearerToken(header: String, token: String?) {
    #expect(Router.bearerToken(header) == token)
  }

  @Test("matching ignores ASCII letter case and surrounding blanks only")
  func matching() {
    #expect(HeaderBytes.matches(" \tGZip\t ", "gzip"))
    #expect(HeaderBytes.matches("gzip", "gzip"))
    #expect(!HeaderBytes.matches("gzi", "gzip"))
    #expect(!HeaderBytes.matches("g zip", "gzip"))
    // '@' | 0x20 is '`': only letters may differ in case.
    #expect(!HeaderBytes.matches("@", "`"))
    #expect(HeaderBytes.trimmed("  a b\t") == "a b")
    #expect(HeaderBytes.trimmed(" \t ") == "")
  }
}
