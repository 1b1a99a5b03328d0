import Testing
import UptakeHTTP
import UptakeTestSupport

@Suite("GzipDecoder: gzip bodies, inflated with a hard cap")
struct GzipDecoderTests {
  static let eightMiB = 8 << 20

  @Test("a gzip body inflates to exactly what was compressed")
  func roundTrip() throws {
    let json = Array(
      #"{"events":[{"updateId":"u1","action":"impression","appVersion":"1.0"}]}"#.utf8)

    #expect(try GzipDecoder.decode(gzip(json), maxOutputBytes: Self.eightMiB) == json)
  }

  @Test("a body larger than one inflate step round-trips too")
  func roundTripManySteps() throws {
    // Varied text, so the compressed form is not trivially small.
    var generator = SystemRandomNumberGenerator()
    let text = (0..<300_000).map { _ in UInt8.random(in: 32...126, using: &generator) }

    #expect(try GzipDecoder.decode(gzip(text), maxOutputBytes: Self.eightMiB) == text)
  }

  @Test("gzip of nothing inflates to nothing")
  func emptyContent() throws {
    #expect(try GzipDecoder.decode(gzip([]), maxOutputBytes: Self.eightMiB) == [])
  }

  @Test("a stream cut short is malformed, wherever it is cut")
  func truncated() throws {
    let compressed = try gzip(Array(String(repeating: "uptake ", count: 2_000).utf8))

    for length in [0, 5, 10, compressed.count / 2, compressed.count - 4, compressed.count - 1] {
      #expect(throws: GzipDecoder.Failure.malformed, "cut at \(length) of \(compressed.count)") {
        try GzipDecoder.decode(Array(compressed.prefix(length)), maxOutputBytes: Self.eightMiB)
      }
    }
  }

  @Test("bytes after the end of the gzip stream are malformed")
  func trailingGarbage() throws {
    let compressed = try gzip(Array("{}".utf8))

    #expect(throws: GzipDecoder.Failure.malformed) {
      try GzipDecoder.decode(compressed + Array("garbage".utf8), maxOutputBytes: Self.eightMiB)
    }
  }

  @Test("a wrong checksum is malformed")
  func corruptChecksum() throws {
    var compressed = try gzip(Array("{\"events\":[]}".utf8))
    // The trailer is CRC-32 then length, 4 bytes each.
    compressed[compressed.count - 8] ^= 0xFF

    #expect(throws: GzipDecoder.Failure.malformed) {
      try GzipDecoder.decode(compressed, maxOutputBytes: Self.eightMiB)
    }
  }

  @Test("a body that is not gzip at all is malformed")
  func notGzip() {
    #expect(throws: GzipDecoder.Failure.malformed) {
      try GzipDecoder.decode(Array(#"{"events":[]}"#.utf8), maxOutputBytes: Self.eightMiB)
    }
  }

  @Test("50 MB of zeros in a ~50 KB body is refused as too large, not inflated")
  func bomb() throws {
    let bomb = try gzippedZeros(count: 50_000_000)
    #expect(bomb.count < 100_000)

    #expect(throws: GzipDecoder.Failure.tooLarge) {
      try GzipDecoder.decode(bomb, maxOutputBytes: Self.eightMiB)
    }
  }

  @Test("output of exactly the cap is accepted; one byte more is too large")
  func capBoundary() throws {
    let cap = 1 << 20
    let exactly = try gzippedZeros(count: cap)
    let oneMore = try gzippedZeros(count: cap + 1)

    #expect(try GzipDecoder.decode(exactly, maxOutputBytes: cap).count == cap)
    #expect(throws: GzipDecoder.Failure.tooLarge) {
      try GzipDecoder.decode(oneMore, maxOutputBytes: cap)
    }
  }
}
