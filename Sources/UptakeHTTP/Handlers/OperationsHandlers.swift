import UptakeStore

/// `/healthz`, `/readyz` and `/metrics`: open, for the operator's probes.
struct OperationsHandlers: Sendable {
  let writer: BatchWriter
  let metrics: IngestMetrics
  /// The App Store watch's counters, in the exposition format.
  let storeMetrics: @Sendable () -> String
  let isShuttingDown: @Sendable () -> Bool
  /// The database file; its write-ahead log is this path plus `-wal`.
  let databasePath: String

  var routes: [Route] {
    [
      Route("GET", "/healthz", access: .open) { _ in .respond(.text("ok\n")) },
      Route("GET", "/readyz", access: .open) { _ in
        guard writer.isAcceptingWrites && !isShuttingDown() else {
          return .respond(
            APIError.unavailable("storage cannot take writes", retryAfterSeconds: 2).response)
        }
        return .respond(.text("ready\n"))
      },
      Route("GET", "/metrics", access: .open) { _ in
        .respond(
          .text(
            metrics.exposition(
              queueDepth: writer.queueDepth, unfoldedEvents: writer.unfoldedEvents,
              ready: writer.isAcceptingWrites,
              walBytes: Database.walBytes(ofDatabaseAt: databasePath)) + storeMetrics(),
            contentType: "text/plain; version=0.0.4; charset=utf-8"))
      },
    ]
  }
}
