import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A finished HTTP exchange.
public struct HTTPResponse: Sendable {
  public let status: Int
  public let headers: [String: String]
  public let body: Data

  public var text: String { String(decoding: body, as: UTF8.self) }

  /// A header by case-insensitive name.
  public func header(_ name: String) -> String? {
    headers.first { $0.key.lowercased() == name.lowercased() }?.value
  }
}

/// A blocking client over URLSession, one session (and its connections) per
/// client, as a real app would have.
public final class HTTPClient: Sendable {
  private let session: URLSession

  public init(timeout: TimeInterval = 15) {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    session = URLSession(configuration: configuration)
  }

  deinit { session.invalidateAndCancel() }

  /// Sends a request and waits for the whole response; throws on a
  /// connection error.
  public func send(
    _ method: String, _ url: URL, headers: [String: String] = [:], body: Data? = nil
  ) throws -> HTTPResponse {
    var request = URLRequest(url: url)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = body
    return try send(request)
  }

  /// Posts a JSON body as a stream, so it goes out chunked, without a
  /// Content-Length.
  public func postChunkedJSON(_ url: URL, key: String, _ body: Data) throws -> HTTPResponse {
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
    request.httpBodyStream = InputStream(data: body)
    return try send(request)
  }

  private func send(_ request: URLRequest) throws -> HTTPResponse {
    let exchange = Exchange()
    session.dataTask(with: request) { data, response, error in
      exchange.finish(data: data, response: response, error: error)
    }.resume()
    return try exchange.wait()
  }

  public func get(_ url: URL, key: String? = nil, headers: [String: String] = [:]) throws
    -> HTTPResponse
  {
    var headers = headers
    if let key { headers["Authorization"] = "Bearer \(key)" }
    return try send("GET", url, headers: headers)
  }

  /// Posts a JSON body with the key as a Bearer token.
  public func postJSON(_ url: URL, key: String?, _ body: String, headers: [String: String] = [:])
    throws
    -> HTTPResponse
  {
    try postJSON(url, key: key, Data(body.utf8), headers: headers)
  }

  public func postJSON(_ url: URL, key: String?, _ body: Data, headers: [String: String] = [:])
    throws
    -> HTTPResponse
  {
    var headers = headers
    if let key { headers["Authorization"] = "Bearer \(key)" }
    if headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
    return try send("POST", url, headers: headers, body: body)
  }
}

/// One request's answer, handed from URLSession's thread to the waiting one.
private final class Exchange: @unchecked Sendable {
  private let lock = NSLock()
  private let done = DispatchSemaphore(value: 0)
  private var result: Result<HTTPResponse, any Error>?

  func finish(data: Data?, response: URLResponse?, error: (any Error)?) {
    let outcome: Result<HTTPResponse, any Error>
    if let error {
      outcome = .failure(error)
    } else if let http = response as? HTTPURLResponse {
      var headers: [String: String] = [:]
      for (name, value) in http.allHeaderFields {
        headers[String(describing: name)] = String(describing: value)
      }
      outcome = .success(
        HTTPResponse(status: http.statusCode, headers: headers, body: data ?? Data()))
    } else {
      outcome = .failure(URLError(.badServerResponse))
    }
    lock.withLock { result = outcome }
    done.signal()
  }

  func wait() throws -> HTTPResponse {
    done.wait()
    return try lock.withLock { result! }.get()
  }
}
