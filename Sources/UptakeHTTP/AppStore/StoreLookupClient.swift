import Foundation
import UptakeCluster
import UptakeCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Asks an App Store lookup endpoint, one request at a time, from the
/// watcher's thread: never from a check's.
final class StoreLookupClient: Sendable {
  private let client: BlockingHTTPClient

  init(timeoutSeconds: Double) {
    client = BlockingHTTPClient(
      timeoutSeconds: timeoutSeconds,
      headers: ["User-Agent": "uptaked", "Accept": "application/json"])
  }

  /// The lookup of app `appId` in `country`: `GET {base}/{country}/lookup?id={id}`.
  static func url(base: String, country: String, appId: String) -> URL? {
    URL(
      string:
        "\(base.hasSuffix("/") ? String(base.dropLast()) : base)/\(country)/lookup?id=\(appId)")
  }

  /// What the lookup answered, read; or why it told nothing.
  func lookUp(_ url: URL, appId: String) -> Result<StoreLookupAnswer, StoreLookupProblem> {
    switch client.send(URLRequest(url: url)) {
    case .failure(let failure):
      return .failure(.unreachable(failure.message))
    case .success(let answer):
      guard answer.status == 200 else { return .failure(.status(answer.status)) }
      return StoreLookupAnswer.parse(Array(answer.body), appId: appId)
    }
  }
}
