import Testing

@testable import UptakeHTTP

@Suite("Ingest admission: Content-Type and Content-Encoding, checked before the body")
struct IngestAdmissionTests {
  static let wrongType = APIError.unsupportedMediaType("Content-Type must be application/json")
  static let wrongEncoding = APIError.unsupportedMediaType(
    "Content-Encoding must be gzip or identity")

  private func admit(_ headers: [String: String]) -> APIError? {
    IngestHandler.admit(RequestHead(method: "POST", path: "/v1/events", headers: headers))
  }

  @Test(
    "JSON is admitted, with or without parameters, in any letter case",
    arguments: [
      "application/json", "application/json; charset=utf-8", "Application/JSON",
      "application/json ;charset=UTF-8", " application/json",
    ])
  func jsonAdmitted(contentType: String) {
    #expect(admit(["Content-Type": contentType]) == nil)
  }

  @Test(
    "anything else is 415",
    arguments: [
      "text/plain", "application/x-www-form-urlencoded", "application/jsonx", "text/json",
      "multipart/form-data; boundary=x", "",
    ])
  func otherTypesRefused(contentType: String) {
    #expect(admit(["Content-Type": contentType]) == Self.wrongType)
  }

  @Test("no Content-Type at all is 415")
  func missingContentType() {
    #expect(admit([:]) == Self.wrongType)
  }

  @Test(
    "gzip and identity encodings are admitted", arguments: ["gzip", "GZIP", "identity", " gzip "])
  func encodingsAdmitted(encoding: String) {
    #expect(admit(["Content-Type": "application/json", "Content-Encoding": encoding]) == nil)
  }

  @Test("other encodings are 415", arguments: ["br", "deflate", "compress", "gzip, br", "zstd"])
  func otherEncodingsRefused(encoding: String) {
    #expect(
      admit(["Content-Type": "application/json", "Content-Encoding": encoding])
        == Self.wrongEncoding)
  }

  @Test("the refusal is the contract's 415 body")
  func refusalBody() {
    let response = admit(["Content-Type": "text/plain"])?.response

    #expect(response?.status == 415)
    #expect(
      response?.bodyText
        == #"{"error":{"code":"unsupported_media_type","message":"Content-Type must be application/json"}}"#
    )
  }
}
