import UptakeCore
import UptakeStore

/// Finds the route of a request and checks its key. Built once at start.
public struct Router: Sendable {
  /// The outcome of looking at a request's head.
  public enum Decision: Sendable {
    /// Go on: read the body, then call the handler with this request.
    case accept(Route, Request)
    case refuse(APIError)
  }

  /// Not private: the OpenAPI test reads what is served from here.
  let routes: [Route]
  private let keys: KeyDirectory?

  public init(routes: [Route], keys: KeyDirectory?) {
    self.routes = routes
    self.keys = keys
  }

  /// Routes and authenticates a request from its head alone.
  public func decide(_ head: RequestHead) -> Decision {
    // First, whatever the path and before any key is looked up: such a
    // request is malformed, and a key with a control character in it must
    // never authenticate, nor tell by its answer whether the rest matched.
    if let refusal = head.controlCharacterRefusal { return .refuse(refusal) }
    // Split only when a route with parameters is tried: a literal route is
    // matched by comparing the whole path, which spares the ingest route
    // an array of segments on every request.
    var pathSegments: [Substring]?
    var allowed: [String] = []
    for route in routes {
      let parameters: [String]
      if route.isLiteral {
        guard route.pattern == head.path else { continue }
        parameters = []
      } else {
        let segments =
          pathSegments ?? head.path.split(separator: "/", omittingEmptySubsequences: false)
        pathSegments = segments
        guard let matched = route.match(segments) else { continue }
        parameters = matched
      }
      guard route.method == head.method || (route.method == "GET" && head.method == "HEAD") else {
        allowed.append(route.method)
        continue
      }
      var request = Request(head: head)
      request.pathParameters = parameters
      request.routePattern = route.pattern
      switch authenticate(head, route.access) {
      case .success(let app): request.app = app
      case .failure(let error): return .refuse(error)
      }
      if let error = route.admit?(head) { return .refuse(error) }
      return .accept(route, request)
    }
    return .refuse(allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed))
  }

  /// The pattern of the first route whose path matches, whatever the
  /// method; it labels a refused request (401, 405, 415) in metrics. An
  /// accepted request carries its route's pattern already.
  public func pattern(of path: String) -> String? {
    let pathSegments = path.split(separator: "/", omittingEmptySubsequences: false)
    return routes.first { $0.match(pathSegments) != nil }?.pattern
  }

  /// Runs a request end to end without a socket: for tests and tools.
  public func handle(_ request: Request) -> HandlerOutcome {
    switch decide(request.head) {
    case .refuse(let error):
      return .respond(error.response)
    case .accept(let route, var routed):
      routed.body = request.body
      return route.handler(routed)
    }
  }

  private func authenticate(_ head: RequestHead, _ access: Access) -> Result<AppRecord?, APIError> {
    let wanted: KeyKind
    switch access {
    case .open: return .success(nil)
    case .ingestKey: wanted = .ingest
    case .readKey: wanted = .read
    }
    guard let token = Self.presentedKey(head), let keys,
      let resolved = keys.resolve(token), resolved.kind == wanted
    else {
      return .failure(.unauthorized)
    }
    return .success(resolved.app)
  }

  /// The key from `Authorization: Bearer …`, else from `X-Uptake-Key`.
  static func presentedKey(_ head: RequestHead) -> String? {
    if let authorization = head.header("authorization"), let token = bearerToken(authorization) {
      return token
    }
    if let key = head.header("x-uptake-key"), !key.isEmpty { return key }
    return nil
  }

  /// The credentials of a `Bearer` authorization, the scheme in any case.
  static func bearerToken(_ authorization: String) -> String? {
    let value = HeaderBytes.trimmed(authorization[...])
    guard let space = value.utf8.firstIndex(of: UInt8(ascii: " ")),
      HeaderBytes.matches(value[..<space], "bearer")
    else { return nil }
    let token = HeaderBytes.trimmed(value[value.utf8.index(after: space)...])
    return token.isEmpty ? nil : String(token)
  }
}
