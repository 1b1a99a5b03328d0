import UptakeCore
import UptakeStore

/// One answer body of `/v1/check` or `/v1/lockout`, written once, with its
/// entity tag.
struct RenderedAnswer: Sendable {
  let body: [UInt8]
  /// A strong tag: the hash of the body, so equal answers share a tag and
  /// any change of the answer changes it.
  let etag: String

  init(_ writer: JSONWriter) {
    body = writer.bytes
    let hash = StableHash.fnv1a64(body)
    let hex = String(hash, radix: 16)
    etag = "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
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
