import UptakeCore

/// Every whole-request failure the API answers, mapped to its status, code
/// and JSON body in one place.
public enum APIError: Error, Sendable, Equatable {
  case badRequest(String)
  case unauthorized
  case notFound
  case methodNotAllowed(allowed: [String])
  case payloadTooLarge(String)
  case unsupportedMediaType(String)
  case rateLimited(retryAfterSeconds: Int)
  case unavailable(String, retryAfterSeconds: Int)
  case internalError

  public var status: Int {
    switch self {
    case .badRequest: 400
    case .unauthorized: 401
    case .notFound: 404
    case .methodNotAllowed: 405
    case .payloadTooLarge: 413
    case .unsupportedMediaType: 415
    case .rateLimited: 429
    case .unavailable: 503
    case .internalError: 500
    }
  }

  public var code: String {
    switch self {
    case .badRequest: "bad_request"
    case .unauthorized: "unauthorized"
    case .notFound: "not_found"
    case .methodNotAllowed: "method_not_allowed"
    case .payloadTooLarge: "payload_too_large"
    case .unsupportedMediaType: "unsupported_media_type"
    case .rateLimited: "rate_limited"
    case .unavailable: "unavailable"
    case .internalError: "internal"
    }
  }

  public var message: String {
    switch self {
    case .badRequest(let message), .payloadTooLarge(let message),
      .unsupportedMediaType(let message):
      message
    case .unauthorized: "missing or unknown key"
    case .notFound: "no such path"
    case .methodNotAllowed(let allowed): "use " + allowed.joined(separator: " or ")
    case .rateLimited: "too many requests; retry later"
    case .unavailable(let message, _): message
    case .internalError: "internal error"
    }
  }

  /// The contract's error body, with the headers this status needs.
  public var response: Response {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("error")
    writer.beginObject()
    writer.member("code", code)
    writer.member("message", message)
    writer.endObject()
    writer.endObject()
    var response = Response.json(writer, status: status)
    switch self {
    case .methodNotAllowed(let allowed):
      response.headers.append(("Allow", allowed.joined(separator: ", ")))
    case .rateLimited(let seconds), .unavailable(_, let seconds):
      response.headers.append(("Retry-After", String(seconds)))
    case .unauthorized:
      response.headers.append(("WWW-Authenticate", "Bearer"))
    default:
      break
    }
    return response
  }
}
