import Foundation
import UptakeCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Asks an App Store lookup endpoint, one request at a time, from the
/// watcher's thread: never from a check's.
final class StoreLookupClient: Sendable {
  private let session: URLSession
  private let timeoutSeconds: Double

  init(timeoutSeconds: Double) {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeoutSeconds
    configuration.timeoutIntervalForResource = timeoutSeconds
    configuration.httpAdditionalHeaders = ["User-Agent": "uptaked", "Accept": "application/json"]
    session = URLSession(configuration: configuration)
    self.timeoutSeconds = timeoutSeconds
  }

  /// The lookup of app `appId` in `country`: `GET {base}/{country}/lookup?id={id}`.
  static func url(base: String, country: String, appId: String) -> URL? {
    URL(
      string:
        "\(base.hasSuffix("/") ? String(base.dropLast()) : base)/\(country)/lookup?id=\(appId)")
  }

  /// What the lookup answered, read; or why it told nothing.
  func lookUp(_ url: URL, appId: String) -> Result<StoreLookupAnswer, StoreLookupProblem> {
    let done = DispatchSemaphore(value: 0)
    let outcome = Outcome()
    let task = session.dataTask(with: url) { data, response, error in
      outcome.set(data: data, response: response, error: error)
      done.signal()
    }
    task.resume()
    // The session's own timeout ends the task; this wait only guards
    // against one that never calls back.
    if done.wait(timeout: .now() + timeoutSeconds + 5) == .timedOut {
      task.cancel()
      return .failure(.unreachable("no answer in \(Int(timeoutSeconds)) s"))
    }
    let (data, response, error) = outcome.get()
    if let error { return .failure(.unreachable(error.localizedDescription)) }
    guard let status = (response as? HTTPURLResponse)?.statusCode else {
      return .failure(.unreachable("no HTTP answer"))
    }
    guard status == 200 else { return .failure(.status(status)) }
    return StoreLookupAnswer.parse(Array(data ?? Data()), appId: appId)
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
