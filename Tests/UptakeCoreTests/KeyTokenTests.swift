import Testing

@testable import UptakeCore

private func hex(_ bytes: [UInt8]) -> String {
  bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

@Suite struct KeyTokenTests {
  private static let alphabet = Set(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".unicodeScalars)

  @Test(arguments: [(KeyKind.ingest, "upi_"), (KeyKind.read, "upr_")])
  func tokenFormat(kind: KeyKind, prefix: String) {
    let token = KeyToken.generate(kind)
    #expect(token.hasPrefix(prefix))
    // 24 bytes are 32 base64url characters, without padding.
    #expect(token.count == 4 + 32)
    #expect(token.dropFirst(4).unicodeScalars.allSatisfy(Self.alphabet.contains))
  }

  @Test func tokensAreFresh() {
    let tokens = Set((0..<200).map { _ in KeyToken.generate(.ingest) })
    #expect(tokens.count == 200)
  }

  @Test(
    arguments: [
      ([], ""), (Array("f".utf8), "Zg"), (Array("fo".utf8), "Zm8"), (Array("foo".utf8), "Zm9v"),
      (Array("foobar".utf8), "Zm9vYmFy"), ([0xFB, 0xFF, 0xBF], "-_-_"), ([0xFF, 0xFE], "__4"),
    ] as [([UInt8], String)])
  func base64URL(bytes: [UInt8], expected: String) {
    #expect(KeyToken.base64URL(bytes) == expected)
  }

  @Test func hashIsSHA256() {
    #expect(
      hex(KeyToken.hash("abc"))
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      hex(KeyToken.hash("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(KeyToken.hash("upi_x").count == 32)
  }

  @Test func constantTimeEquals() {
    let a = KeyToken.hash("upi_a")
    var b = a
    #expect(KeyToken.constantTimeEquals(a, b))
    b[31] ^= 1
    #expect(!KeyToken.constantTimeEquals(a, b))
    #expect(!KeyToken.constantTimeEquals(a, Array(a.prefix(31))))
    #expect(!KeyToken.constantTimeEquals([], a))
    #expect(KeyToken.constantTimeEquals([], []))
  }
}
