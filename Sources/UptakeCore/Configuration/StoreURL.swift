/// What an entry's `storeUrl` may be. Every install that gets the prompt
/// hands the URL to the system to open when its user taps Update, so a URL
/// of any scheme would let whoever edits the configuration make every
/// install run `javascript:`, open `file:` or `data:`, or launch another
/// app. Only the schemes the stores are reached by are accepted.
enum StoreURL {
  /// `https:` for the stores' web links (which the store apps open),
  /// `itms-apps:` for the App Store app, `market:` for Google Play.
  /// Matched in any case, as URL schemes are.
  static let schemes = ["https", "itms-apps", "market"]

  /// Why `text` is no store URL, or nil when it is one.
  static func problem(_ text: String) -> String? {
    guard text.utf8.count <= UpdateConfigurationDecoder.maxURLLength else {
      return "must be at most \(UpdateConfigurationDecoder.maxURLLength) bytes"
    }
    // A character that cannot be seen in the file, or that a URL parser
    // strips or splits at, would make the URL opened differ from the one
    // reviewed: whitespace (U+00A0 and U+3000 too), controls (C0, DEL,
    // C1), and format characters such as U+200B or the bidi overrides.
    if text.unicodeScalars.contains(where: isHidden) {
      return "must not contain spaces, control or invisible characters"
    }
    let bytes = Array(text.utf8)
    let scheme = bytes.prefix { $0 != UInt8(ascii: ":") }
    guard let first = scheme.first, isLetter(first), scheme.allSatisfy(isSchemeByte),
      scheme.count < bytes.count - 1
    else {
      return "not an absolute URL (like https://apps.apple.com/app/id1234567890)"
    }
    let name = String(decoding: scheme, as: UTF8.self)
    guard schemes.contains(name.lowercased()) else {
      let allowed = schemes.dropLast().joined(separator: ", ") + " or " + schemes.last!
      return "scheme \"\(name)\" is not allowed (use \(allowed))"
    }
    return nil
  }

  private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator: true
    default: scalar.properties.isWhitespace
    }
  }

  /// RFC 3986: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
  private static func isSchemeByte(_ byte: UInt8) -> Bool {
    isLetter(byte) || byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: "+")
      || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
  }

  private static func isLetter(_ byte: UInt8) -> Bool {
    (byte | 0x20) &- UInt8(ascii: "a") < 26
  }
}
