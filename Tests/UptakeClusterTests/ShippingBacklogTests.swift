import Foundation
import Synchronization
import Testing

@testable import UptakeCluster

@Suite("ShippingBacklog: how far a spool may run ahead of shipping")
struct ShippingBacklogTests {
  /// Whether the writer may commit at once, past `committedSeq`.
  private func room(_ backlog: ShippingBacklog, _ committedSeq: Int64) -> Bool {
    backlog.waitForRoom(committedSeq: committedSeq, seconds: 0)
  }

  @Test("before shipping has reached the cluster, and while it cannot, the spool takes all")
  func openWhileUnreachable() {
    let backlog = ShippingBacklog(shippedSeq: 0, maxEvents: 100)
    #expect(room(backlog, 1_000_000))
    backlog.shipped(through: 10)
    // What waited when shipping began is let be, but not added to.
    #expect(room(backlog, 1_000_000))
    #expect(!room(backlog, 1_000_001))
    backlog.unreachable()
    #expect(room(backlog, 2_000_000))
  }

  @Test("with the cluster reachable, the writer waits past maxEvents not shipped")
  func boundedByMaxEvents() {
    let backlog = ShippingBacklog(shippedSeq: 0, maxEvents: 100)
    backlog.shipped(through: 0)
    #expect(room(backlog, 100))
    #expect(!room(backlog, 101))
    backlog.shipped(through: 50)
    #expect(room(backlog, 150))
    #expect(!room(backlog, 151))
  }

  @Test("after an outage the bound is the backlog it left, lowered as shipping drains it")
  func outageBacklogDrains() {
    let backlog = ShippingBacklog(shippedSeq: 0, maxEvents: 100)
    backlog.shipped(through: 0)
    backlog.unreachable()
    #expect(room(backlog, 5_000), "the spool took 5,000 events during the outage")
    backlog.shipped(through: 1_000)
    // Ingest goes on at shipping's pace: not above the 4,000 waiting.
    #expect(room(backlog, 5_000))
    #expect(!room(backlog, 5_001))
    backlog.shipped(through: 3_000)
    #expect(room(backlog, 5_000), "2,000 waiting: the bound falls to it")
    #expect(!room(backlog, 5_001))
    backlog.shipped(through: 5_000)
    #expect(room(backlog, 5_100))
    #expect(!room(backlog, 5_101), "drained: back to maxEvents")
  }

  @Test("a writer waiting for room goes on when a block ships")
  func shippingWakesTheWriter() {
    let backlog = ShippingBacklog(shippedSeq: 0, maxEvents: 100)
    backlog.shipped(through: 0)
    let outcome = Mutex<(room: Bool, seconds: Double)?>(nil)
    let done = DispatchSemaphore(value: 0)
    // A thread of its own, as the writer's: a task blocked in a wait
    // would hold one of the few threads every test shares.
    Thread.detachNewThread {
      let started = Date()
      let room = backlog.waitForRoom(committedSeq: 150, seconds: 10)
      outcome.withLock { $0 = (room, Date().timeIntervalSince(started)) }
      done.signal()
    }
    Thread.sleep(forTimeInterval: 0.1)
    backlog.shipped(through: 50)
    #expect(done.wait(timeout: .now() + 20) == .success)
    let waited = outcome.withLock { $0 }
    #expect(waited?.room == true)
    #expect((waited?.seconds ?? 10) < 5, "woken by the block, not by the 10 s timeout")
  }
}
