import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A finished exchange, seen from a test.
struct TestAnswer: Sendable {
  let status: Int
  let headers: [String: String]
  let body: Data
}

/// Sends a request and waits for its answer on the calling thread; for the
/// stub server's handlers and synchronous test code.
func blockingRequest(
  _ url: URL, method: String = "GET", headers: [String: String] = [:], body: Data? = nil
) throws -> TestAnswer {
  var request = URLRequest(url: url)
  request.httpMethod = method
  for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
  request.httpBody = body
  request.timeoutInterval = 30
  let outcome = Outcome()
  let done = DispatchSemaphore(value: 0)
  let session = URLSession(configuration: .ephemeral)
  defer { session.finishTasksAndInvalidate() }
  session.dataTask(with: request) { data, response, error in
    if let http = response as? HTTPURLResponse, error == nil {
      var fields: [String: String] = [:]
      for (name, value) in http.allHeaderFields {
        fields[String(describing: name).lowercased()] = String(describing: value)
      }
      outcome.set(
        .success(TestAnswer(status: http.statusCode, headers: fields, body: data ?? Data())))
    } else {
      outcome.set(.failure(error ?? URLError(.badServerResponse)))
    }
    done.signal()
  }.resume()
  done.wait()
  return try outcome.get()
}

private final class Outcome: @unchecked Sendable {
  private let lock = NSLock()
  private var result: Result<TestAnswer, any Error> = .failure(URLError(.unknown))

  func set(_ result: Result<TestAnswer, any Error>) {
    lock.lock()
    self.result = result
    lock.unlock()
  }

  func get() throws -> TestAnswer {
    lock.lock()
    defer { lock.unlock() }
    return try result.get()
  }
}
