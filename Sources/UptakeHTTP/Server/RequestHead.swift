import UptakeStore

/// What is known of a request before its body is read: enough to route it,
/// authenticate it and refuse it early.
public struct RequestHead: Sendable {
  public var method: String
  public var path: String
  /// Query arguments, decoded; the last one wins when a name repeats.
  public var query: [String: String]
  /// Header values by lower-cased name.
  public var headers: [String: String]

  public init(
    method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:]
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { _, last in last }
  }

  /// For the server adapter, which lower-cases header names as it reads
  /// them: no second dictionary built a request.
  init(method: String, path: String, query: [String: String], lowercasedHeaders: [String: String]) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = lowercasedHeaders
  }

  public func header(_ name: String) -> String? {
    // Callers name headers in lower case; lower-casing such a name again
    // cost a copy per lookup, several lookups a request.
    if let value = headers[name] { return value }
    for byte in name.utf8 where HeaderBytes.isUpperASCII(byte) {
      return headers[name.lowercased()]
    }
    return nil
  }

  /// The declared body length, when the client sent Content-Length.
  public var contentLength: Int? { header("content-length").flatMap { Int($0) } }
}
