import Foundation
import Synchronization
import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

/// A gate opened and closed by the test, counting how often it was asked.
private final class SwitchGate: CommitGate {
  private let open = Mutex(false)
  private let asked = Mutex(0)

  func set(open value: Bool) { open.withLock { $0 = value } }
  var timesAsked: Int { asked.withLock { $0 } }

  func waitForRoom(committedSeq: Int64, seconds: Double) -> Bool {
    asked.withLock { $0 += 1 }
    if open.withLock({ $0 }) { return true }
    Thread.sleep(forTimeInterval: seconds)
    return open.withLock { $0 }
  }
}

@Suite("BatchWriter waits at its commit gate (a node's shipping)")
struct CommitGateTests {
  @Test("a closed gate holds every batch back, uncommitted; opened, all of them commit")
  func closedGateHoldsCommits() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let gate = SwitchGate()
    let writer = try BatchWriter(database: database, gate: gate)
    writer.start()
    defer { writer.stop() }
    let answered = Mutex(0)
    for job in 0..<5 {
      #expect(
        writer.submit(batch(app, events(ids: ["a\(job)", "b\(job)"]))) { _ in
          answered.withLock { $0 += 1 }
        })
    }
    Thread.sleep(forTimeInterval: 0.3)
    #expect(gate.timesAsked > 1, "the writer asked again while the gate stayed closed")
    #expect(answered.withLock { $0 } == 0)
    #expect(try database.storedEventCount() == 0)
    #expect(writer.committedSeq == 0)

    gate.set(open: true)
    let deadline = Date().addingTimeInterval(10)
    while answered.withLock({ $0 }) < 5 && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.01)
    }
    #expect(answered.withLock { $0 } == 5)
    #expect(try database.storedEventCount() == 10)
  }

  @Test("stop() commits what a closed gate held back, and returns")
  func stopPassesTheGate() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let app = try database.addApp("shop")
    let writer = try BatchWriter(database: database, gate: SwitchGate())
    writer.start()
    let answered = Mutex(0)
    #expect(writer.submit(batch(app, events(ids: ["held"]))) { _ in answered.withLock { $0 += 1 } })
    Thread.sleep(forTimeInterval: 0.1)
    writer.stop()
    #expect(answered.withLock { $0 } == 1)
    #expect(try database.storedEventCount() == 1)
  }
}
