import Foundation

/// Threads that run report queries, so a slow report never holds one of
/// libmicrohttpd's event-loop threads (and every connection it serves, such
/// as the apps posting events) while it reads the database. At most as many
/// run at once as there are pooled read connections.
///
/// Shared fairly between apps: one app runs at most `perAppConcurrency`
/// reports at once, and waiting reports start app by app in turn, each
/// app's in order. Before, they started first come, first served: four
/// slow reports of one app (a read key is a secret, but a team's script
/// can loop) held every worker, and another app's smallest report waited
/// behind them all (issue 25).
final class ReportWorkers: @unchecked Sendable {
  private let concurrency: Int
  private let perAppConcurrency: Int
  private let condition = NSCondition()
  // Guarded by `condition`:
  /// Waiting work by app, each app's in arrival order.
  private var waiting: [Int64: [@Sendable () -> Void]] = [:]
  /// The apps with waiting work, in the order they take turns.
  private var turns: [Int64] = []
  private var running: [Int64: Int] = [:]
  private var idleThreads = 0
  private var threads = 0

  /// `perAppConcurrency` defaults to half the workers (at least one), so
  /// another app always finds a worker free of the first.
  init(concurrency: Int, perAppConcurrency: Int? = nil) {
    self.concurrency = max(1, concurrency)
    self.perAppConcurrency = max(
      1, min(self.concurrency, perAppConcurrency ?? self.concurrency / 2))
  }

  /// Answers the request from a worker thread; the connection waits
  /// suspended meanwhile. `appNo` is the app the report is for.
  func outcome(appNo: Int64, _ work: @escaping @Sendable () -> Response) -> HandlerOutcome {
    .deferred { respond in
      self.enqueue(appNo: appNo) { respond(work()) }
    }
  }

  private func enqueue(appNo: Int64, _ work: @escaping @Sendable () -> Void) {
    condition.lock()
    defer { condition.unlock() }
    if waiting[appNo, default: []].isEmpty { turns.append(appNo) }
    waiting[appNo, default: []].append(work)
    if idleThreads > 0 {
      condition.signal()
    } else if threads < concurrency {
      threads += 1
      let thread = Thread { [self] in runWorker() }
      thread.name = "uptake-reports"
      thread.start()
    }
  }

  /// Takes the next work that may start: the first app in turn below its
  /// share. Call with `condition` locked.
  private func nextWork() -> (appNo: Int64, work: @Sendable () -> Void)? {
    guard
      let turn = turns.firstIndex(where: { running[$0, default: 0] < perAppConcurrency })
    else { return nil }
    let appNo = turns.remove(at: turn)
    let work = waiting[appNo]!.removeFirst()
    if waiting[appNo]!.isEmpty {
      waiting[appNo] = nil
    } else {
      turns.append(appNo)
    }
    running[appNo, default: 0] += 1
    return (appNo, work)
  }

  private func runWorker() {
    condition.lock()
    while true {
      guard let (appNo, work) = nextWork() else {
        idleThreads += 1
        condition.wait()
        idleThreads -= 1
        continue
      }
      condition.unlock()
      work()
      condition.lock()
      running[appNo]! -= 1
      if running[appNo] == 0 { running[appNo] = nil }
      // The app's next report may start now: wake a worker for it.
      if !turns.isEmpty { condition.signal() }
    }
  }
}
