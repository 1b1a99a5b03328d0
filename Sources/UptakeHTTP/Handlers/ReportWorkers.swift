import Foundation

/// Threads that run report queries, so a slow report never holds one of
/// libmicrohttpd's event-loop threads (and every connection it serves, such
/// as the apps posting events) while it reads the database. At most as many
/// run at once as there are pooled read connections; the rest wait in order.
final class ReportWorkers: @unchecked Sendable {
  private let queue = OperationQueue()

  init(concurrency: Int) {
    queue.name = "uptake-reports"
    queue.maxConcurrentOperationCount = max(1, concurrency)
  }

  /// Answers the request from a worker thread; the connection waits
  /// suspended meanwhile.
  func outcome(_ work: @escaping @Sendable () -> Response) -> HandlerOutcome {
    .deferred { respond in
      self.queue.addOperation { respond(work()) }
    }
  }
}
