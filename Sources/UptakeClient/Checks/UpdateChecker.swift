import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Asks `/v1/check` which prompt this install should see, failing open.
struct UpdateChecker: Sendable {
  let configuration: UptakeConfiguration
  let installId: String
  let transport: HTTPTransport
  let cache: CheckCache

  func check() async -> UpdateDecision {
    let query = self.query
    guard
      var components = URLComponents(
        url: configuration.baseURL.appendingPathComponent("v1/check"),
        resolvingAgainstBaseURL: false)
    else { return .noUpdate }
    components.percentEncodedQuery = query
    guard let url = components.url else { return .noUpdate }
    var request = URLRequest(url: url)
    request.setValue("Bearer \(configuration.ingestKey)", forHTTPHeaderField: "Authorization")
    let cached = cache.entry(for: query)
    if let cached { request.setValue(cached.etag, forHTTPHeaderField: "If-None-Match") }
    guard
      let answer = try? await transport.send(
        request, deadline: configuration.limits.checkTimeout)
    else { return .noUpdate }
    switch answer.status {
    case 304:
      return cached.flatMap { CheckAnswer.decision(from: $0.body) } ?? .noUpdate
    case 200:
      guard let decision = CheckAnswer.decision(from: answer.body) else { return .noUpdate }
      if let etag = answer.header("ETag") {
        cache.store(CheckCache.Entry(query: query, etag: etag, body: answer.body))
      }
      return decision
    default:
      return .noUpdate
    }
  }

  /// The query string, percent-encoded; `+` too, which a server may read as
  /// a space.
  var query: String {
    var items = [
      URLQueryItem(name: "platform", value: configuration.platform.rawValue),
      URLQueryItem(name: "appVersion", value: configuration.appVersion),
    ]
    if let osVersion = configuration.osVersion {
      items.append(URLQueryItem(name: "osVersion", value: osVersion))
    }
    items.append(URLQueryItem(name: "installId", value: installId))
    if let locale = configuration.locale {
      items.append(URLQueryItem(name: "locale", value: locale))
    }
    var components = URLComponents()
    components.queryItems = items
    return (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
  }
}
