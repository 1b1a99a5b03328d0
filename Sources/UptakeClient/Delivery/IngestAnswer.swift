import Foundation

/// What the server said to one batch, reduced to what the client acts on.
enum IngestAnswer: Equatable {
  /// `200`: every event is settled, stored, a duplicate or rejected.
  case stored(accepted: Int, duplicates: Int, rejected: Int)
  /// `400`, `401`, `413`: the batch would fail again the same way.
  case refused(status: Int)
  /// A network error, a timeout, `429`, `503` or any other answer: worth
  /// another try, not before `retryAfter` seconds when the server said so.
  case retry(retryAfter: TimeInterval?)

  /// Statuses the contract says not to retry.
  static let finalStatuses: Set<Int> = [400, 401, 413]

  init(_ answer: HTTPAnswer, batchSize: Int) {
    switch answer.status {
    case 200:
      // A 200 means committed, so the events leave the queue even if the
      // summary is unreadable; then none counts as a duplicate or rejected.
      let summary = try? JSONDecoder().decode(Summary.self, from: answer.body)
      let rejected = summary?.rejected.count ?? 0
      self = .stored(
        accepted: summary?.accepted ?? batchSize - rejected, duplicates: summary?.duplicates ?? 0,
        rejected: rejected)
    case let status where IngestAnswer.finalStatuses.contains(status):
      self = .refused(status: status)
    default:
      self = .retry(retryAfter: RetryDelay.retryAfter(answer.header("Retry-After")))
    }
  }

  private struct Summary: Decodable {
    let accepted: Int
    let duplicates: Int
    let rejected: [Rejection]
  }

  private struct Rejection: Decodable {
    let index: Int
  }
}
