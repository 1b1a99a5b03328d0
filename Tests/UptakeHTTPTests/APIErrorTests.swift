import Testing
import UptakeHTTP

@Suite("APIError: each whole-request failure's status, JSON body and headers")
struct APIErrorTests {
  struct Case: CustomTestStringConvertible, Sendable {
    let error: APIError
    let status: Int
    let body: String
    let headers: [String: String]
    var testDescription: String { "\(status) \(body)" }
  }

  static let cases: [Case] = [
    Case(
      error: .badRequest("\"events\" must be an array"), status: 400,
      body: #"{"error":{"code":"bad_request","message":"\"events\" must be an array"}}"#,
      headers: [:]),
    Case(
      error: .unauthorized, status: 401,
      body: #"{"error":{"code":"unauthorized","message":"missing or unknown key"}}"#,
      headers: ["WWW-Authenticate": "Bearer"]),
    Case(
      error: .notFound, status: 404,
      body: #"{"error":{"code":"not_found","message":"no such path"}}"#, headers: [:]),
    Case(
      error: .methodNotAllowed(allowed: ["GET", "HEAD"]), status: 405,
      body: #"{"error":{"code":"method_not_allowed","message":"use GET or HEAD"}}"#,
      headers: ["Allow": "GET, HEAD"]),
    Case(
      error: .payloadTooLarge("body over 1048576 bytes"), status: 413,
      body: #"{"error":{"code":"payload_too_large","message":"body over 1048576 bytes"}}"#,
      headers: [:]),
    Case(
      error: .unsupportedMediaType("Content-Type must be application/json"), status: 415,
      body:
        #"{"error":{"code":"unsupported_media_type","message":"Content-Type must be application/json"}}"#,
      headers: [:]),
    Case(
      error: .rateLimited(retryAfterSeconds: 7), status: 429,
      body: #"{"error":{"code":"rate_limited","message":"too many requests; retry later"}}"#,
      headers: ["Retry-After": "7"]),
    Case(
      error: .unavailable("storage cannot take writes", retryAfterSeconds: 2), status: 503,
      body: #"{"error":{"code":"unavailable","message":"storage cannot take writes"}}"#,
      headers: ["Retry-After": "2"]),
    Case(
      error: .internalError, status: 500,
      body: #"{"error":{"code":"internal","message":"internal error"}}"#, headers: [:]),
  ]

  @Test(
    "the response carries the status, the exact body and the status's headers", arguments: cases)
  func response(of example: Case) {
    let response = example.error.response

    #expect(response.status == example.status)
    #expect(example.error.status == example.status)
    #expect(response.bodyText == example.body)
    #expect(response.header("Content-Type") == "application/json")
    for (name, value) in example.headers {
      #expect(response.header(name) == value)
    }
    #expect(response.headers.count == 1 + example.headers.count, "no other headers")
  }

  @Test("control characters and backslashes in a message are escaped")
  func messageEscaping() {
    let response = APIError.badRequest("line\nbreak \\ tab\t \u{1}").response

    #expect(
      response.bodyText
        == #"{"error":{"code":"bad_request","message":"line\nbreak \\ tab\t \u0001"}}"#)
  }
}
