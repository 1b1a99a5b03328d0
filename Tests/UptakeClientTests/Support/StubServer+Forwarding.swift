import Foundation
import UptakeTestSupport

extension StubServer {
  /// A stub in front of `daemon` that passes every request on and counts it.
  static func forwarding(to daemon: DaemonFixture) throws -> StubServer {
    let base = daemon.baseURL
    return try StubServer { request, _ in passing(request, to: base) }
  }

  /// Passes `request` on to this stub's server as it is; for a stub in front
  /// of another stub.
  func pass(_ request: StubRequest) -> StubReply {
    StubServer.passing(request, to: baseURL)
  }

  /// Sends `request` to `base` and answers what it answered.
  static func passing(_ request: StubRequest, to base: URL) -> StubReply {
    var headers: [String: String] = [:]
    for name in ["authorization", "content-type", "if-none-match"] {
      if let value = request.headers[name] { headers[name] = value }
    }
    guard
      let url = URL(string: base.absoluteString + request.target),
      let answer = try? HTTPClient(timeout: 30).send(
        request.method, url, headers: headers, body: request.method == "GET" ? nil : request.body)
    else { return .close }
    var answerHeaders: [String: String] = [:]
    for name in ["retry-after", "etag", "content-type"] {
      if let value = answer.header(name) { answerHeaders[name] = value }
    }
    return .respond(status: answer.status, headers: answerHeaders, body: answer.text)
  }
}
