import CCrypto

/// API key tokens: random, recognisable by prefix, stored only as hashes.
public enum KeyToken {
  /// A new token: `upi_` (ingest) or `upr_` (read) and the unpadded base64url
  /// of 24 bytes from OpenSSL's CSPRNG. 192 bits is well past the contract's
  /// 128, and the prefix lets secret scanners and people tell keys apart.
  public static func generate(_ kind: KeyKind) -> String {
    var random = [UInt8](repeating: 0, count: 24)
    guard RAND_bytes(&random, Int32(random.count)) == 1 else {
      // A key from a failed generator could be guessable; better no key.
      fatalError("RAND_bytes failed: no secure randomness for a new key")
    }
    let prefix = kind == .ingest ? "upi_" : "upr_"
    return prefix + base64URL(random)
  }

  /// SHA-256 of the token's UTF-8 bytes, the form in which keys are stored.
  /// A plain fast hash suffices: tokens have 192 random bits, so there is
  /// nothing for a slow password hash to protect.
  public static func hash(_ token: String) -> [UInt8] {
    let bytes = Array(token.utf8)
    var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
    _ = SHA256(bytes, bytes.count, &digest)
    return digest
  }

  /// Compares two digests in time independent of where they differ, so that
  /// response timing tells nothing about a stored hash. Different lengths are
  /// simply unequal.
  public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    return CRYPTO_memcmp(a, b, a.count) == 0
  }

  static func base64URL(_ bytes: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count * 4 + 2) / 3)
    var i = 0
    while i < bytes.count {
      let remaining = bytes.count - i
      let chunk =
        UInt32(bytes[i]) << 16 | (remaining > 1 ? UInt32(bytes[i + 1]) << 8 : 0)
        | (remaining > 2 ? UInt32(bytes[i + 2]) : 0)
      let characters = min(remaining, 3) + 1
      for k in 0..<characters {
        out.append(alphabet[Int(chunk >> UInt32(18 - 6 * k) & 0x3F)])
      }
      i += 3
    }
    return String(decoding: out, as: UTF8.self)
  }
}
