import UptakeCore
import UptakeStore

/// An answer body written once, with its entity tag: the answers of
/// `/v1/check` and `/v1/lockout`, and the dashboard's files.
struct RenderedAnswer: Sendable {
  let body: [UInt8]
  /// A strong tag: the hash of the body, so equal answers share a tag and
  /// any change of the answer changes it.
  let etag: String

  init(_ writer: JSONWriter) {
    self.init(body: writer.bytes)
  }

  init(body: [UInt8]) {
    self.body = body
    let hash = StableHash.fnv1a64(body)
    let hex = String(hash, radix: 16)
    etag = "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
  }

  /// True when an `If-None-Match` list names this answer's tag (or is
  /// `*`); weak tags match too, as RFC 9110 asks for this header.
  func isNamed(byIfNoneMatch header: String) -> Bool {
    for candidate in header.split(separator: ",") {
      var tag = HeaderBytes.trimmed(candidate)
      if tag == "*" { return true }
      if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
      if tag == etag { return true }
    }
    return false
  }

  /// `{"hasupdate": 0}`, the same for every app and request.
  static let noUpdate: RenderedAnswer = {
    var json = JSONWriter()
    json.beginObject()
    json.member("hasupdate", 0)
    json.endObject()
    return RenderedAnswer(json)
  }()
}
