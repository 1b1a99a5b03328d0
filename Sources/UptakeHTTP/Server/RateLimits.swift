import Foundation
import Synchronization

/// The daemon's rate limits: per key (the app and which of its keys) and per
/// client address, each off unless configured. They apply to routes that
/// need a key; the operator's probes and metrics are never limited.
public struct RateLimits: Sendable {
  public var perKey: RateLimiter.Rate?
  public var perAddress: RateLimiter.Rate?

  public init(perKey: RateLimiter.Rate? = nil, perAddress: RateLimiter.Rate? = nil) {
    self.perKey = perKey
    self.perAddress = perAddress
  }
}
