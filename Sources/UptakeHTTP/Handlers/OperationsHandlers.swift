import UptakeStore

/// `/healthz`, `/readyz` and `/metrics`: open, for the operator's probes.
struct OperationsHandlers: Sendable {
  let writer: BatchWriter
  let metrics: IngestMetrics
  /// The App Store watch's counters, in the exposition format.
  let storeMetrics: @Sendable () -> String
  /// As a node over a cluster, how its shipping goes.
  let shipping: ShippingReport?
  let isShuttingDown: @Sendable () -> Bool
  /// The database file; its write-ahead log is this path plus `-wal`.
  let databasePath: String

  var routes: [Route] {
    [
      Route("GET", "/healthz", access: .open) { _ in .respond(.text("ok\n")) },
      Route("GET", "/readyz", access: .open) { _ in
        guard writer.isAcceptingWrites && !isShuttingDown() else {
          let why = shipping?.refusal() ?? "storage cannot take writes"
          return .respond(APIError.unavailable(why, retryAfterSeconds: 2).response)
        }
        // A node takes events while ClickHouse is away: ready, and says so.
        return .respond(.text("ready\n" + (shipping.map { $0.summary() + "\n" } ?? "")))
      },
      Route("GET", "/metrics", access: .open) { _ in
        .respond(
          .text(
            metrics.exposition(
              queueDepth: writer.queueDepth, unfoldedEvents: writer.unfoldedEvents,
              ready: writer.isAcceptingWrites,
              walBytes: Database.walBytes(ofDatabaseAt: databasePath)) + Self.answerBacklog()
              + storeMetrics() + (shipping?.exposition() ?? ""),
            contentType: "text/plain; version=0.0.4; charset=utf-8"))
      },
    ]
  }

  /// The bytes of answers waiting for slow readers, in memory and in files
  /// (`AnswerBacklog`).
  private static func answerBacklog() -> String {
    """
    # HELP uptake_answer_backlog_bytes Bytes of answers still being sent to their readers, \
    held in memory or read from a nameless file.
    # TYPE uptake_answer_backlog_bytes gauge
    uptake_answer_backlog_bytes{held="memory"} \(AnswerBacklog.held)
    uptake_answer_backlog_bytes{held="file"} \(AnswerBacklog.spilled)

    """
  }
}
