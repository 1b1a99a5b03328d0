import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One outbound HTTP request at a time, waited for on the caller's thread:
/// for the threads that talk to ClickHouse or the App Store, never for a
/// request's own.
public final class BlockingHTTPClient: Sendable {
  /// What a request came back with.
  public struct Answer: Sendable {
    public let status: Int
    public let body: Data
  }

  private let session: URLSession
  private let timeoutSeconds: Double

  public init(timeoutSeconds: Double, headers: [String: String] = [:]) {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeoutSeconds
    configuration.timeoutIntervalForResource = timeoutSeconds
    configuration.httpAdditionalHeaders = headers
    session = URLSession(configuration: configuration)
    self.timeoutSeconds = timeoutSeconds
  }

  /// The answer to `request`, or why there was none (the message of the
  /// failure: refused, timed out, no HTTP answer).
  public func send(_ request: URLRequest) -> Result<Answer, BlockingHTTPFailure> {
    let done = DispatchSemaphore(value: 0)
    let outcome = Outcome()
    let task = session.dataTask(with: request) { data, response, error in
      outcome.set(data: data, response: response, error: error)
      done.signal()
    }
    task.resume()
    // The session's own timeout ends the task; this wait only guards
    // against one that never calls back.
    if done.wait(timeout: .now() + timeoutSeconds + 5) == .timedOut {
      task.cancel()
      return .failure(BlockingHTTPFailure(message: "no answer in \(Int(timeoutSeconds)) s"))
    }
    let (data, response, error) = outcome.get()
    if let error { return .failure(BlockingHTTPFailure(message: error.localizedDescription)) }
    guard let status = (response as? HTTPURLResponse)?.statusCode else {
      return .failure(BlockingHTTPFailure(message: "no HTTP answer"))
    }
    return .success(Answer(status: status, body: data ?? Data()))
  }

  /// Cancels what is under way and closes the session's connections. A
  /// session left with connections open kept the daemon from exiting
  /// after its orderly stop.
  public func close() {
    session.invalidateAndCancel()
  }

  /// The task's callback values, handed from URLSession's queue to the waiter.
  private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    private var response: URLResponse?
    private var error: (any Error)?

    func set(data: Data?, response: URLResponse?, error: (any Error)?) {
      lock.withLock { (self.data, self.response, self.error) = (data, response, error) }
    }

    func get() -> (Data?, URLResponse?, (any Error)?) {
      lock.withLock { (data, response, error) }
    }
  }
}

/// A request that got no HTTP answer at all.
public struct BlockingHTTPFailure: Error, Sendable {
  public let message: String
}
