import Foundation
import Synchronization
import UptakeCore
import UptakeStore

/// Counters of the daemon, written from any thread and read by `/metrics`.
public final class IngestMetrics: Sendable {
  private struct Counts {
    var accepted = 0
    var duplicates = 0
    var rejectedByField: [String: Int] = [:]
    var overDistinctLimitByField: [String: Int] = [:]
    var requests: [RequestLabel: Int] = [:]
    var commitFailures = 0
    var batchEvents = Histogram(bounds: IngestMetrics.batchEventBounds)
    var commitSeconds = Histogram(bounds: IngestMetrics.commitSecondsBounds)
  }

  /// Events per transaction: one request's worth up to the writer's cap,
  /// so the buckets show how far group commit is folding requests together.
  static let batchEventBounds: [Double] = [1, 10, 100, 1000, 5000, 20000]
  /// Commit latency: an fsync on an SSD is a millisecond or two, a busy disk
  /// tens; a second or more means trouble.
  static let commitSecondsBounds: [Double] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
  ]

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
      for rejection in outcome.rejected {
        counts.overDistinctLimitByField[Self.field(of: rejection), default: 0] += 1
      }
    }
  }

  /// The field a rejection's error names (the text before the colon), which
  /// keeps the label set small and free of client data.
  private static func field(of rejection: Rejection) -> String {
    rejection.error.split(separator: ":", maxSplits: 1).first.map(String.init) ?? "event"
  }

  /// Counts events rejected by validation by the field their error names.
  func rejected(_ rejections: [Rejection]) {
    guard !rejections.isEmpty else { return }
    counts.withLock { counts in
      for rejection in rejections {
        counts.rejectedByField[Self.field(of: rejection), default: 0] += 1
      }
    }
  }

  /// Counts a finished request and logs it: one line at debug level, and
  /// always for a 500. The line names the route's pattern, never the path
  /// as sent or a header, so no key can reach the log.
  func requestCompleted(_ request: CompletedRequest, logger: Logger) {
    counts.withLock {
      $0.requests[
        RequestLabel(method: request.method, route: request.route, status: request.status),
        default: 0] += 1
    }
    let level: Logger.Level = request.status >= 500 && request.status != 503 ? .error : .debug
    // Checked here too, so the busy path formats nothing it will not print.
    guard level >= logger.minimumLevel else { return }
    logger.log(
      level, "request",
      [
        "method": request.method, "route": request.route, "status": String(request.status),
        "ms": String(format: "%.1f", request.seconds * 1000),
      ])
  }

  /// The batch writer's observer: commit sizes and latencies into the
  /// histograms, failures counted and logged, recovery logged.
  func writerObserver(logger: Logger) -> BatchWriter.Observer {
    var observer = BatchWriter.Observer()
    observer.committed = { [self] events, seconds in
      counts.withLock { counts in
        counts.batchEvents.observe(Double(events))
        counts.commitSeconds.observe(seconds)
      }
    }
    observer.failed = { [self] failure in
      counts.withLock { $0.commitFailures += 1 }
      switch failure {
      case .unavailable(let message):
        logger.error("commit failed; storage cannot take writes", ["error": message])
      case .failed(let message):
        logger.error("commit failed", ["error": message])
      case .overloaded:
        break
      }
    }
    observer.upkeepFailed = { message in
      logger.error("upkeep failed; retrying", ["error": message])
    }
    observer.recovered = { logger.info("storage takes writes again") }
    observer.loadedDistinctValues = { values, tailEvents, seconds in
      logger.info(
        "distinct values per day loaded",
        [
          "values": String(values), "tail.events": String(tailEvents),
          "ms": String(format: "%.1f", seconds * 1000),
        ])
    }
    observer.stopFailed = { message in
      logger.warning("stop left upkeep undone; the data is safe", ["error": message])
    }
    return observer
  }

  /// The Prometheus text exposition of every counter, plus the gauges given.
  func exposition(queueDepth: Int, unfoldedEvents: Int64, ready: Bool, walBytes: Int) -> String {
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
    text +=
      "# HELP uptake_events_over_distinct_limit_total Events rejected because their app "
      + "already had --max-distinct-per-day values of the field that day, by field.\n"
    text += "# TYPE uptake_events_over_distinct_limit_total counter\n"
    for (field, count) in snapshot.overDistinctLimitByField.sorted(by: { $0.key < $1.key }) {
      text += "uptake_events_over_distinct_limit_total{field=\"\(field)\"} \(count)\n"
    }
    text += "# HELP uptake_commit_failures_total Transactions of events that failed to commit.\n"
    text += "# TYPE uptake_commit_failures_total counter\n"
    text += "uptake_commit_failures_total \(snapshot.commitFailures)\n"
    text += snapshot.batchEvents.exposition(
      name: "uptake_commit_events", help: "Events per committed transaction.")
    text += snapshot.commitSeconds.exposition(
      name: "uptake_commit_seconds", help: "Time to store and commit one transaction.")
    text += "# HELP uptake_wal_bytes Size of the SQLite write-ahead log file.\n"
    text += "# TYPE uptake_wal_bytes gauge\n"
    text += "uptake_wal_bytes \(walBytes)\n"
    text += "# HELP uptake_ingest_queue_events Events waiting for the batch writer.\n"
    text += "# TYPE uptake_ingest_queue_events gauge\n"
    text += "uptake_ingest_queue_events \(queueDepth)\n"
    text +=
      "# HELP uptake_unfolded_events Events stored and not yet folded into the report aggregates.\n"
    text += "# TYPE uptake_unfolded_events gauge\n"
    text += "uptake_unfolded_events \(unfoldedEvents)\n"
    text += "# HELP uptake_ready 1 while storage takes writes.\n"
    text += "# TYPE uptake_ready gauge\n"
    text += "uptake_ready \(ready ? 1 : 0)\n"
    return text
  }
}
