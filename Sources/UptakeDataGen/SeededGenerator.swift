/// A small deterministic random generator (SplitMix64): the same seed gives
/// the same events on every machine and every run.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  public init(seed: UInt64) {
    state = seed
  }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// True with probability `p`.
  public mutating func chance(_ p: Double) -> Bool {
    Double(next() >> 11) / Double(1 << 53) < p
  }

  /// A random UUIDv4 in its usual text form, as clients send for `id`.
  public mutating func uuid() -> String {
    let high = next()
    let low = next()
    let bytes =
      (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
      + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    var adjusted = bytes
    adjusted[6] = (adjusted[6] & 0x0F) | 0x40
    adjusted[8] = (adjusted[8] & 0x3F) | 0x80
    let hex = adjusted.map { byte -> String in
      let text = String(byte, radix: 16)
      return text.count == 1 ? "0" + text : text
    }.joined()
    var text = ""
    for (index, character) in hex.enumerated() {
      if [8, 12, 16, 20].contains(index) { text.append("-") }
      text.append(character)
    }
    return text
  }
}
