import UptakeStore

public typealias Handler = @Sendable (Request) -> HandlerOutcome

/// Which key a route needs.
public enum Access: Sendable {
  case open
  case ingestKey
  case readKey
}

/// One method and path pattern with its handler. `{name}` segments match one
/// path segment each and arrive in `Request.pathParameters`.
public struct Route: Sendable {
  public let method: String
  /// The path pattern as written (`/v1/updates/{updateId}`): its name in
  /// metrics and logs.
  public let pattern: String
  public let segments: [Substring]
  /// True when the pattern has no `{parameters}`: a path matches it exactly
  /// when it equals the pattern, segment splitting not needed.
  let isLiteral: Bool
  public let access: Access
  /// Refuses a request from its head alone, before the body is read
  /// (content type, declared length); nil admits it.
  public let admit: (@Sendable (RequestHead) -> APIError?)?
  public let handler: Handler

  public init(
    _ method: String, _ pattern: String, access: Access,
    admit: (@Sendable (RequestHead) -> APIError?)? = nil, handler: @escaping Handler
  ) {
    self.method = method
    self.pattern = pattern
    self.segments = pattern.split(separator: "/", omittingEmptySubsequences: false)
    self.isLiteral = !segments.contains { $0.first == "{" }
    self.access = access
    self.admit = admit
    self.handler = handler
  }

  func match(_ pathSegments: [Substring]) -> [String]? {
    guard pathSegments.count == segments.count else { return nil }
    var parameters: [String] = []
    for (pattern, segment) in zip(segments, pathSegments) {
      if pattern.first == "{" {
        guard !segment.isEmpty else { return nil }
        parameters.append(String(segment))
      } else if pattern != segment {
        return nil
      }
    }
    return parameters
  }
}
