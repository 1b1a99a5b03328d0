import Glibc

/// An IPv4 or IPv6 address, as a client address is compared with trusted
/// proxies and counted by the per-address rate limit. Held as 128 bits,
/// IPv4 in its IPv4-mapped form (`::ffff:a.b.c.d`), so `10.0.0.1` and
/// `::ffff:10.0.0.1` (how a dual-stack socket shows an IPv4 peer) are one
/// address and one rate-limit bucket.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
  let high: UInt64
  let low: UInt64

  /// The longest text worth handing to `inet_pton`: a full IPv6 address
  /// with an IPv4 tail (INET6_ADDRSTRLEN less its NUL).
  private static let maxTextLength = 45

  /// Parses an address written alone: dotted IPv4 (`inet_pton`'s strict
  /// form: four decimal parts, no leading zeros) or IPv6, without
  /// brackets, port or zone. Nil for anything else, so a header value
  /// never parses by accident: every byte must be a hex digit, `.` or `:`
  /// (a NUL inside would otherwise end the text for `inet_pton`).
  public init?(_ text: some StringProtocol) {
    let bytes = Array(text.utf8)
    guard !bytes.isEmpty, bytes.count <= Self.maxTextLength,
      bytes.allSatisfy(Self.mayAppearInAddress)
    else { return nil }
    var parsed = in6_addr()
    let isIPv6 = bytes.contains(UInt8(ascii: ":"))
    let accepted = (bytes + [0]).withUnsafeBufferPointer { cText in
      cText.withMemoryRebound(to: CChar.self) { cText in
        if isIPv6 { return inet_pton(AF_INET6, cText.baseAddress, &parsed) }
        var ipv4 = in_addr()
        guard inet_pton(AF_INET, cText.baseAddress, &ipv4) == 1 else { return Int32(0) }
        // ::ffff:a.b.c.d, the address in network order in the last 4 bytes.
        withUnsafeMutableBytes(of: &parsed) { destination in
          destination[10] = 0xff
          destination[11] = 0xff
          withUnsafeBytes(of: ipv4.s_addr) {
            UnsafeMutableRawBufferPointer(rebasing: destination[12...]).copyMemory(from: $0)
          }
        }
        return Int32(1)
      }
    }
    guard accepted == 1 else { return nil }
    (high, low) = withUnsafeBytes(of: parsed) { bytes in
      bytes.withMemoryRebound(to: UInt8.self) { bytes in
        (Self.bigEndian(bytes[0..<8]), Self.bigEndian(bytes[8..<16]))
      }
    }
  }

  /// True for an IPv4 address (held IPv4-mapped).
  public var isIPv4: Bool { high == 0 && low >> 32 == 0xffff }

  /// Dotted for IPv4, `inet_ntop`'s canonical form for IPv6: one text per
  /// address, whatever form the client wrote.
  public var description: String {
    if isIPv4 {
      return (0..<4).map { String((low >> (24 - 8 * $0)) & 0xff) }.joined(separator: ".")
    }
    var address = in6_addr()
    withUnsafeMutableBytes(of: &address) { bytes in
      for index in 0..<8 {
        bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
        bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
      }
    }
    var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return "" }
    return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }

  private static func mayAppearInAddress(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
      UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "."), UInt8(ascii: ":"):
      true
    default:
      false
    }
  }

  private static func bigEndian(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> UInt64 {
    bytes.reduce(0) { $0 << 8 | UInt64($1) }
  }
}
