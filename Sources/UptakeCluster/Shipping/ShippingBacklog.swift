import Foundation
import UptakeStore

/// How far a node's spool may run ahead of its shipping before its writer
/// waits: ingest then keeps shipping's pace, so under a flood the lag of
/// the reports stays bounded instead of growing with the spool.
///
/// The bound is `maxEvents`, or the backlog the spool already held when
/// shipping (re)started, whichever is larger, lowered as shipping drains
/// it: after an outage ingest goes on at shipping's pace without waiting
/// for the outage's events to ship first. While the cluster cannot be
/// reached the gate stays open, and the spool takes events up to
/// `--max-spool-bytes`.
public final class ShippingBacklog: CommitGate, @unchecked Sendable {
  /// Two blocks: at 250,000 the lag under a flood levelled off at 5-6 s
  /// with one node and 12 s with two, each shipping half as fast
  /// (docs/scaling.md).
  public static let defaultMaxEvents: Int64 = 100_000

  private let maxEvents: Int64
  private let condition = NSCondition()
  // Guarded by `condition`:
  private var shippedSeq: Int64
  private var reachable = false
  /// Nil until the writer first asks after shipping (re)started.
  private var allowed: Int64?

  public init(shippedSeq: Int64, maxEvents: Int64 = defaultMaxEvents) {
    self.shippedSeq = shippedSeq
    self.maxEvents = maxEvents
  }

  /// Shipping took events through `seq` to the cluster.
  func shipped(through seq: Int64) {
    condition.lock()
    defer { condition.unlock() }
    if !reachable { allowed = nil }
    reachable = true
    shippedSeq = seq
    condition.broadcast()
  }

  /// Shipping failed: the spool takes what comes until it is full.
  func unreachable() {
    condition.lock()
    defer { condition.unlock() }
    reachable = false
    condition.broadcast()
  }

  public func waitForRoom(committedSeq: Int64, seconds: Double) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    if hasRoom(committedSeq: committedSeq) { return true }
    _ = condition.wait(until: Date().addingTimeInterval(seconds))
    return hasRoom(committedSeq: committedSeq)
  }

  private func hasRoom(committedSeq: Int64) -> Bool {
    guard reachable else { return true }
    let backlog = committedSeq - shippedSeq
    let bound = max(maxEvents, min(allowed ?? backlog, backlog))
    allowed = bound
    return backlog <= bound
  }
}
