import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// URLSession, wrapped so that a request ends by its deadline (whatever the
/// server does) and with the calling task's cancellation.
final class HTTPTransport: Sendable {
  private let session: URLSession

  init() {
    let configuration = URLSessionConfiguration.ephemeral
    // The client keeps its own check cache with ETags; a second cache
    // underneath would answer without asking.
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    session = URLSession(configuration: configuration)
  }

  deinit { session.invalidateAndCancel() }

  /// Sends `request` and waits for the whole answer, at most `deadline`
  /// seconds in all.
  func send(_ request: URLRequest, deadline: TimeInterval) async throws -> HTTPAnswer {
    var timed = request
    timed.timeoutInterval = deadline
    let request = timed
    let task = TaskBox()
    return try await withTaskCancellationHandler {
      try await withThrowingTaskGroup(of: HTTPAnswer.self) { group in
        group.addTask { try await self.exchange(request, box: task) }
        group.addTask {
          try await Task.sleep(nanoseconds: UInt64(max(0, deadline) * 1_000_000_000))
          throw URLError(.timedOut)
        }
        defer {
          group.cancelAll()
          task.cancel()
        }
        return try await group.next()!
      }
    } onCancel: {
      task.cancel()
    }
  }

  private func exchange(_ request: URLRequest, box: TaskBox) async throws -> HTTPAnswer {
    try await withCheckedThrowingContinuation { continuation in
      let task = session.dataTask(with: request) { data, response, error in
        if let error {
          continuation.resume(throwing: error)
        } else if let http = response as? HTTPURLResponse {
          var headers: [String: String] = [:]
          for (name, value) in http.allHeaderFields {
            headers[String(describing: name)] = String(describing: value)
          }
          continuation.resume(
            returning: HTTPAnswer(status: http.statusCode, headers: headers, body: data ?? Data()))
        } else {
          continuation.resume(throwing: URLError(.badServerResponse))
        }
      }
      box.set(task)
      task.resume()
    }
  }
}

/// The data task of one request, for cancelling it from another task.
private final class TaskBox: @unchecked Sendable {
  private let lock = NSLock()
  private var task: URLSessionDataTask?
  private var cancelled = false

  func set(_ task: URLSessionDataTask) {
    let cancelNow = lock.sync {
      self.task = task
      return cancelled
    }
    if cancelNow { task.cancel() }
  }

  func cancel() {
    let task = lock.sync {
      cancelled = true
      return self.task
    }
    task?.cancel()
  }
}
