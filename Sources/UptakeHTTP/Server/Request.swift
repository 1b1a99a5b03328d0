import UptakeStore

/// A whole request as handlers see it: a plain value, so tests can call the
/// router without a socket.
public struct Request: Sendable {
  public var head: RequestHead
  public var body: [UInt8]
  /// The `{parameters}` of the matched route, in order.
  public var pathParameters: [String] = []
  /// The matched route's pattern (`/v1/updates/{updateId}`): what a log
  /// line names, never the path as sent, which a client writes.
  public var routePattern: String?
  /// The app the request's key names, once authenticated.
  public var app: AppRecord?

  public init(head: RequestHead, body: [UInt8] = []) {
    self.head = head
    self.body = body
  }

  public var method: String { head.method }
  public var path: String { head.path }
  public func query(_ name: String) -> String? { head.query[name] }
}
