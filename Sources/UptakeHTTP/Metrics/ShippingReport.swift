import UptakeCluster
import UptakeCore

/// What a node says of its shipping to the cluster: a line for `/readyz`
/// and its figures for `/metrics`, with those of its memory of report rows
/// (the node's other figures of the cluster).
struct ShippingReport: Sendable {
  let thread: ShippingThread
  /// The spool's cap (`--max-spool-bytes`), when it has one.
  let maxSpoolBytes: Int64?
  /// The newest event committed to the spool (`BatchWriter.committedSeq`).
  let committedSeq: @Sendable () -> Int64
  /// The reports' groups answered from memory and asked of the cluster
  /// (`ClusterReports.rememberedGroups`).
  let reportGroups: @Sendable () -> (remembered: Int, asked: Int)

  /// How shipping goes, in a sentence.
  func summary(nowMs: Int64 = WallClock.nowMs()) -> String {
    let status = thread.current
    let spool =
      "\(status.waitingEvents(committedSeq: committedSeq())) events wait in the spool (\(status.spoolBytes) bytes"
      + (maxSpoolBytes.map { " of \($0)" } ?? "") + ")"
    if let failure = status.failure {
      let since = status.failingSinceMs.map { " since \(Timestamp.formatRFC3339($0))" } ?? ""
      return "shipping to ClickHouse fails\(since): \(failure); \(spool)"
    }
    guard status.schemaReady else { return "connecting to ClickHouse; \(spool)" }
    return
      "shipping to ClickHouse, \(formatSeconds(lagSeconds(status, nowMs: nowMs))) s behind; \(spool)"
  }

  /// Why the node takes no events: its spool is full, or storage failed.
  func refusal(nowMs: Int64 = WallClock.nowMs()) -> String {
    let status = thread.current
    // A request's batch takes up to about a MiB of pages; the figure is
    // a second old at most.
    if let maxSpoolBytes, status.spoolBytes >= maxSpoolBytes - max(1 << 20, maxSpoolBytes / 10) {
      return "the spool is full; \(summary(nowMs: nowMs))"
    }
    return "storage cannot take writes; \(summary(nowMs: nowMs))"
  }

  /// Seconds since the oldest event not shipped yet was received; 0 when
  /// none waits.
  private func lagSeconds(_ status: ShippingThread.Status, nowMs: Int64) -> Double {
    guard let oldest = status.oldestWaitingReceivedMs else { return 0 }
    return Double(max(0, nowMs - oldest)) / 1000
  }

  private func formatSeconds(_ seconds: Double) -> String {
    String(Double(Int((seconds * 10).rounded())) / 10)
  }

  /// The exposition format's lines.
  func exposition(nowMs: Int64 = WallClock.nowMs()) -> String {
    let status = thread.current
    let groups = reportGroups()
    var text = """
      # HELP uptake_spool_bytes Bytes of the node's spool (its events file) in use.
      # TYPE uptake_spool_bytes gauge
      uptake_spool_bytes \(status.spoolBytes)

      """
    if let maxSpoolBytes {
      text += """
        # HELP uptake_spool_limit_bytes The spool's cap (--max-spool-bytes): past it ingest answers 503.
        # TYPE uptake_spool_limit_bytes gauge
        uptake_spool_limit_bytes \(maxSpoolBytes)

        """
    }
    text += """
      # HELP uptake_spool_events Events committed to the spool and not shipped to ClickHouse yet.
      # TYPE uptake_spool_events gauge
      uptake_spool_events \(status.waitingEvents(committedSeq: committedSeq()))
      # HELP uptake_shipping_lag_seconds Age of the oldest event not shipped yet; 0 when none waits.
      # TYPE uptake_shipping_lag_seconds gauge
      uptake_shipping_lag_seconds \(lagSeconds(status, nowMs: nowMs))
      # HELP uptake_shipped_events_total Events shipped to ClickHouse since the daemon started.
      # TYPE uptake_shipped_events_total counter
      uptake_shipped_events_total \(status.shippedEvents)
      # HELP uptake_shipping_failures_total Attempts to reach ClickHouse that failed.
      # TYPE uptake_shipping_failures_total counter
      uptake_shipping_failures_total \(status.failedAttempts)
      # HELP uptake_cluster_up 1 while the last attempt to reach ClickHouse worked.
      # TYPE uptake_cluster_up gauge
      uptake_cluster_up \(status.failure == nil && status.schemaReady ? 1 : 0)
      # HELP uptake_report_groups_remembered_total Groups of a day's report rows answered from the node's memory, unchanged since asked.
      # TYPE uptake_report_groups_remembered_total counter
      uptake_report_groups_remembered_total \(groups.remembered)
      # HELP uptake_report_groups_asked_total Groups of a day's report rows asked of the cluster: new, or changed since asked.
      # TYPE uptake_report_groups_asked_total counter
      uptake_report_groups_asked_total \(groups.asked)

      """
    return text
  }
}
