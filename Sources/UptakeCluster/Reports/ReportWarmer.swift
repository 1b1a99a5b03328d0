import Foundation
import UptakeCore
import UptakeStore

/// Keeps a node's memory of report rows (`ReportDayCache`) filled ahead of
/// the requests that read it: what the dashboard's first pages ask
/// (`ClusterReports.warm`), for every app soon after the node starts, then
/// every `intervalSeconds` for the apps whose reports were asked for in
/// the last ten minutes. Only those: a node of many apps keeps a bounded
/// memory (`ReportDayCache.maxRows`), and rounds of every app would push
/// out what is read to make room for what is not.
///
/// A report that finds its groups remembered asks the cluster only for
/// what changed since: without this, the first one after a start read
/// every day of its range (0.24-0.59 s over the bench's 10.4M events in
/// two shards), and under a steady flow of late events each report asked
/// for all the groups they had changed. The work is the same; it is done
/// here rather than while someone waits. An app nobody looks at costs
/// nothing after the first round, and a failure (a shard down) only waits
/// for the next round: reports say so themselves.
public final class ReportWarmer: @unchecked Sendable {
  private let reports: ClusterReports
  private let apps: @Sendable () -> [String]
  private let logger: Logger
  private let intervalSeconds: Double
  /// Apps asked for within this long are kept remembered.
  static let recentSeconds = 600.0
  private let loop = BackgroundLoop(name: "uptake-report-warmer")

  /// `apps` lists every app of the node (the first round warms them all).
  public init(
    reports: ClusterReports, apps: @escaping @Sendable () -> [String], logger: Logger,
    intervalSeconds: Double = 10
  ) {
    self.reports = reports
    self.apps = apps
    self.logger = logger
    self.intervalSeconds = intervalSeconds
  }

  public func start() {
    loop.start { [self] in run() }
  }

  /// Ends the thread after the query under way, and waits for it.
  public func stop() {
    loop.stop()
  }

  private func run() {
    // The first round waits a moment, so a node that has just joined has
    // its schema made and its apps read.
    var everyApp = true
    var firstRound = true
    // Said once while it lasts, not every round of an outage.
    var failing = false
    while loop.wait(seconds: firstRound ? 2 : intervalSeconds) {
      let appIds = everyApp ? apps() : reports.appsAsked(withinSeconds: Self.recentSeconds)
      var warmed = 0
      for appId in appIds.sorted() where !loop.isStopping {
        do {
          try reports.warm(appId: appId, nowMs: WallClock.nowMs())
          warmed += 1
          failing = false
        } catch {
          if !failing {
            logger.info(
              "report rows not remembered ahead until the cluster answers",
              ["app": appId, "error": error.description])
          }
          failing = true
          break
        }
      }
      // The round of every app, if it failed (the cluster away), is tried
      // again.
      if warmed == appIds.count { everyApp = false }
      firstRound = false
    }
  }
}
