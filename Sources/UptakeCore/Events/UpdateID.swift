/// The rules for an update's name: 1–64 characters of `[A-Za-z0-9._:-]`.
public enum UpdateID {
  public static let maxLength = 64

  public static func isValid(_ text: String) -> Bool {
    let bytes = text.utf8
    guard (1...maxLength).contains(bytes.count) else { return false }
    return bytes.allSatisfy(isAllowed)
  }

  /// True for the bytes an update id may contain.
  public static func isAllowed(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
      UInt8(ascii: ":"), UInt8(ascii: "-"):
      true
    default:
      false
    }
  }
}
