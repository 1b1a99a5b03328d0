import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One ClickHouse server, spoken to over its HTTP interface: a statement in
/// the body, or a query in the address and its data in the body.
public final class ClickHouseServer: Sendable {
  /// `http://HOST:PORT`, as `--clickhouse` names it.
  public let url: URL
  private let client: BlockingHTTPClient

  public init(url: URL, timeoutSeconds: Double = 30) {
    self.url = url
    client = BlockingHTTPClient(timeoutSeconds: timeoutSeconds, headers: ["User-Agent": "uptaked"])
  }

  /// Runs `sql` and returns what it answered (tab-separated text unless the
  /// statement names a format). `settings` go in the address, as
  /// ClickHouse takes them over HTTP.
  @discardableResult
  public func execute(_ sql: String, settings: [String: String] = [:]) throws(ClickHouseError)
    -> String
  {
    try send(address(settings), body: Data(sql.utf8), statement: sql)
  }

  /// Runs `query` (an `INSERT … FORMAT …`) with `data` as its rows.
  public func insert(_ query: String, data: Data, settings: [String: String] = [:])
    throws(ClickHouseError)
  {
    try send(address(["query": query].merging(settings) { $1 }), body: data, statement: query)
  }

  /// Closes the connections to the server; for the end of the process.
  public func close() {
    client.close()
  }

  private func address(_ parameters: [String: String]) -> URL {
    guard !parameters.isEmpty, var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
    else { return url }
    parts.queryItems = parameters.sorted { $0.key < $1.key }.map {
      URLQueryItem(name: $0.key, value: $0.value)
    }
    // URLComponents leaves `+` as it is, which a server reads as a space.
    parts.percentEncodedQuery = parts.percentEncodedQuery?.replacingOccurrences(
      of: "+", with: "%2B")
    return parts.url ?? url
  }

  @discardableResult
  private func send(_ address: URL, body: Data, statement: String) throws(ClickHouseError)
    -> String
  {
    var request = URLRequest(url: address)
    request.httpMethod = "POST"
    request.httpBody = body
    switch client.send(request) {
    case .failure(let failure):
      throw .unreachable(server: url.absoluteString, message: failure.message)
    case .success(let answer):
      let text = String(decoding: answer.body, as: UTF8.self)
      guard answer.status == 200 else {
        throw .refused(
          server: url.absoluteString, status: answer.status,
          message: text.trimmingCharacters(in: .whitespacesAndNewlines),
          statement: String(statement.prefix(200)))
      }
      return text
    }
  }
}
