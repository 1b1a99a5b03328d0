extension RequestHead {
  /// The 400 for a request that carries a control character (C0, NUL to
  /// US, or DEL) in its path once decoded, in a query argument, or in a
  /// header; nil for any other. No client has a reason to send one, and
  /// read as C strings they cut values short: `Bearer KEY\u{1}…` or
  /// `installId=a%00b` meant something else to a proxy in front than to
  /// us. A tab inside a header value is whitespace (RFC 9110, 5.5), so it
  /// passes. Every header is checked, not only those a handler reads, so a
  /// header read tomorrow is covered without a list to keep in step.
  var controlCharacterRefusal: APIError? {
    if Self.hasControl(path, allowingTab: false) {
      return .badRequest("path: must not contain control characters")
    }
    for (name, value) in query
    where Self.hasControl(name, allowingTab: false) || Self.hasControl(value, allowingTab: false) {
      return .badRequest("query: must not contain control characters")
    }
    for (name, value) in headers
    where Self.hasControl(name, allowingTab: false) || Self.hasControl(value, allowingTab: true) {
      return .badRequest("headers: must not contain control characters")
    }
    return nil
  }

  private static func hasControl(_ text: String, allowingTab: Bool) -> Bool {
    text.utf8.contains { byte in
      (byte < 0x20 && !(allowingTab && byte == UInt8(ascii: "\t"))) || byte == 0x7F
    }
  }
}
