import Synchronization
import UptakeCore
import UptakeStore

/// Counters of the daemon, written from any thread and read by `/metrics`.
public final class IngestMetrics: Sendable {
  private struct Counts {
    var accepted = 0
    var duplicates = 0
    var rejectedByField: [String: Int] = [:]
    var requests: [RequestLabel: Int] = [:]
  }

  struct RequestLabel: Hashable {
    let method: String
    let route: String
    let status: Int
  }

  private let counts = Mutex(Counts())

  public init() {}

  func stored(_ outcome: InsertOutcome) {
    counts.withLock { counts in
      counts.accepted += outcome.accepted
      counts.duplicates += outcome.duplicates
    }
  }

  /// Counts rejected events by the field their error names (the text before
  /// the colon), which keeps the label set small and free of client data.
  func rejected(_ rejections: [Rejection]) {
    guard !rejections.isEmpty else { return }
    counts.withLock { counts in
      for rejection in rejections {
        let field =
          rejection.error.split(separator: ":", maxSplits: 1).first.map(String.init) ?? "event"
        counts.rejectedByField[field, default: 0] += 1
      }
    }
  }

  func requestCompleted(method: String, route: String, status: Int) {
    counts.withLock {
      $0.requests[RequestLabel(method: method, route: route, status: status), default: 0] += 1
    }
  }

  /// The Prometheus text exposition of every counter, plus the gauges given.
  func exposition(queueDepth: Int, ready: Bool) -> String {
    let snapshot = counts.withLock { $0 }
    var text = ""
    text += "# HELP uptake_http_requests_total HTTP requests answered, by route and status.\n"
    text += "# TYPE uptake_http_requests_total counter\n"
    for (label, count) in snapshot.requests.sorted(by: { "\($0.key)" < "\($1.key)" }) {
      text +=
        "uptake_http_requests_total{method=\"\(label.method)\",route=\"\(label.route)\",status=\"\(label.status)\"} \(count)\n"
    }
    text += "# HELP uptake_events_accepted_total Events stored.\n"
    text += "# TYPE uptake_events_accepted_total counter\n"
    text += "uptake_events_accepted_total \(snapshot.accepted)\n"
    text +=
      "# HELP uptake_events_duplicate_total Events skipped because their id was stored already.\n"
    text += "# TYPE uptake_events_duplicate_total counter\n"
    text += "uptake_events_duplicate_total \(snapshot.duplicates)\n"
    text += "# HELP uptake_events_rejected_total Events rejected by validation, by field.\n"
    text += "# TYPE uptake_events_rejected_total counter\n"
    for (field, count) in snapshot.rejectedByField.sorted(by: { $0.key < $1.key }) {
      text += "uptake_events_rejected_total{field=\"\(field)\"} \(count)\n"
    }
    text += "# HELP uptake_ingest_queue_events Events waiting for the batch writer.\n"
    text += "# TYPE uptake_ingest_queue_events gauge\n"
    text += "uptake_ingest_queue_events \(queueDepth)\n"
    text += "# HELP uptake_ready 1 while storage takes writes.\n"
    text += "# TYPE uptake_ready gauge\n"
    text += "uptake_ready \(ready ? 1 : 0)\n"
    return text
  }
}
