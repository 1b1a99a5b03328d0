/// A block of addresses written as `ADDRESS/PREFIX` (`10.0.0.0/8`,
/// `2001:db8::/32`), or an address alone for just that address: what
/// `--trusted-proxy` names.
public struct CIDRBlock: Hashable, Sendable, CustomStringConvertible {
  private let network: IPAddress
  /// Leading bits that must match, over the 128-bit form (an IPv4 block's
  /// prefix plus the 96 bits of the IPv4-mapped prefix).
  private let prefixBits: Int

  /// Nil unless `text` is an address, optionally with `/` and a prefix
  /// length in decimal: 0 to 32 for IPv4, 0 to 128 for IPv6. Bits past
  /// the prefix may be set (`10.1.2.3/8` is `10.0.0.0/8`), as in nginx's
  /// `set_real_ip_from`.
  public init?(_ text: String) {
    let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
    guard let address = IPAddress(parts[0]) else { return nil }
    let addressBits = address.isIPv4 ? 32 : 128
    var length = addressBits
    if parts.count == 2 {
      guard !parts[1].isEmpty, parts[1].utf8.count <= 3,
        parts[1].utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
        let parsed = Int(parts[1]), parsed <= addressBits
      else { return nil }
      length = parsed
    }
    network = address
    prefixBits = 128 - addressBits + length
  }

  /// True when `address` is in the block. An IPv4 block holds only IPv4
  /// addresses, as the IPv4-mapped prefix is part of what must match.
  public func contains(_ address: IPAddress) -> Bool {
    let highMask = Self.mask(bits: min(prefixBits, 64))
    let lowMask = Self.mask(bits: max(prefixBits - 64, 0))
    return (address.high ^ network.high) & highMask == 0
      && (address.low ^ network.low) & lowMask == 0
  }

  public var description: String {
    "\(network)/\(network.isIPv4 ? prefixBits - 96 : prefixBits)"
  }

  /// A 64-bit word's leading `bits` set.
  private static func mask(bits: Int) -> UInt64 {
    bits == 0 ? 0 : ~UInt64(0) << (64 - bits)
  }
}
