import CMicroHTTPD
import Foundation
import Synchronization
import UptakeCore

/// What the server tells its owner about each answered request: the method
/// (one of a fixed set, see `MethodLabel`), the route's pattern (never the
/// path as sent, nor any header; `other` when no route matches), the status,
/// and the time from the head's arrival to the end of the response.
public struct CompletedRequest: Sendable {
  public let method: String
  public let route: String
  public let status: Int
  public let seconds: Double
}
