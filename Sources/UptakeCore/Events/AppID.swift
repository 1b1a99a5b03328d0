/// The rules for an app's name: 1–63 characters of `[a-z0-9-]`, starting
/// with a letter or digit, so it is safe in URLs, file names and logs.
public enum AppID {
  public static let maxLength = 63

  public static func isValid(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    guard (1...maxLength).contains(bytes.count), bytes[0] != UInt8(ascii: "-") else { return false }
    return bytes.allSatisfy { byte in
      (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
    }
  }
}
