import Foundation
import Testing

@testable import UptakeHTTP

/// Report workers are shared fairly between apps (issue 25): one app's
/// slow reports never hold every worker, and waiting reports take turns.
/// A value shared between threads of a test.
private final class Shared<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return body(&value)
  }
}

@Suite("ReportWorkers: a fair share of the report threads per app")
struct ReportWorkersTests {
  /// Starts `work` through the workers for `appNo`; `finished` is signalled
  /// once its response is sent.
  private static func start(
    _ workers: ReportWorkers, appNo: Int64, finished: DispatchSemaphore,
    _ work: @escaping @Sendable () -> Void
  ) {
    guard
      case .deferred(let begin) = workers.outcome(
        appNo: appNo,
        {
          work()
          return Response(status: 200)
        })
    else { return }
    begin { _ in finished.signal() }
  }

  @Test("while one app's reports hold their share, another app's report runs at once")
  func anotherAppIsNotQueuedBehind() {
    let workers = ReportWorkers(concurrency: 4)
    let release = DispatchSemaphore(value: 0)
    let slowDone = DispatchSemaphore(value: 0)
    for _ in 0..<6 {
      Self.start(workers, appNo: 1, finished: slowDone) { release.wait() }
    }
    let otherDone = DispatchSemaphore(value: 0)
    Self.start(workers, appNo: 2, finished: otherDone) {}

    #expect(otherDone.wait(timeout: .now() + 5) == .success, "app 2 waited behind app 1")
    for _ in 0..<6 { release.signal() }
    for _ in 0..<6 { #expect(slowDone.wait(timeout: .now() + 5) == .success) }
  }

  @Test("one app runs at most half the workers at once")
  func anAppsShare() {
    let workers = ReportWorkers(concurrency: 4)
    let running = Shared(0)
    let most = Shared(0)
    let release = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<5 {
      Self.start(workers, appNo: 7, finished: done) {
        running.withLock {
          $0 += 1
          let now = $0
          most.withLock { $0 = max($0, now) }
        }
        release.wait()
        running.withLock { $0 -= 1 }
      }
    }
    Thread.sleep(forTimeInterval: 0.3)
    #expect(most.withLock { $0 } == 2)
    for _ in 0..<5 { release.signal() }
    for _ in 0..<5 { #expect(done.wait(timeout: .now() + 5) == .success) }
    #expect(most.withLock { $0 } == 2)
  }

  @Test("waiting reports of several apps start app by app in turn")
  func turns() {
    let workers = ReportWorkers(concurrency: 1)
    let gate = DispatchSemaphore(value: 0)
    let order = Shared<[Int64]>([])
    let done = DispatchSemaphore(value: 0)
    Self.start(workers, appNo: 9, finished: done) { gate.wait() }
    for appNo: Int64 in [1, 1, 1, 2, 2, 3] {
      Self.start(workers, appNo: appNo, finished: done) { order.withLock { $0.append(appNo) } }
    }
    gate.signal()
    for _ in 0..<7 { #expect(done.wait(timeout: .now() + 5) == .success) }
    #expect(order.withLock { $0 } == [1, 2, 3, 1, 2, 1])
  }
}
