import UptakeCluster
import UptakeCore
import UptakeStore

/// Where `uptake report` reads an app's figures and live configuration:
/// one box's database or the cluster. Both give the same rows
/// (`ClusterReports` mirrors `ReportQueries`), so the tables are printed
/// once for either.
struct ReportSource {
  let appId: String
  /// The app's live configuration; nil without one, or when it no longer
  /// validates, as the daemon's reports take it.
  let configuration: UpdateConfiguration?
  private let reads: Reads

  private enum Reads {
    case oneBox(ReportQueries, appNo: Int64)
    case cluster(ClusterReports)
  }

  /// The cluster when one is named (its schema made, the app checked),
  /// otherwise the database.
  init(appId: String, databasePath: String, cluster: ClusterLayout?) throws(CommandError) {
    self.appId = appId
    if let cluster {
      configuration =
        try ClusterArguments.configurationVersions(of: appId, in: cluster).last?.configuration
      reads = .cluster(ClusterReports(layout: cluster))
      return
    }
    let database = try StoreAccess.open(databasePath)
    let app = try StoreAccess.app(appId, in: database)
    do {
      configuration = try UpdateConfigStore.live(appNo: app.appNo, in: database)?.configuration
    } catch {
      throw .store(error)
    }
    reads = .oneBox(ReportQueries(database: database), appNo: app.appNo)
  }

  /// Every update with events in the range.
  func updates(range: DayRange, test: TestFilter) throws(StoreError) -> [UpdateSummary] {
    switch reads {
    case .oneBox(let queries, let appNo):
      try queries.updates(appNo: appNo, range: range, test: test)
    case .cluster(let reports):
      try reports.updates(appId: appId, range: range, test: test)
    }
  }

  /// One update's events and installs by action, and its events by day.
  func update(_ updateId: String, range: DayRange, test: TestFilter) throws(StoreError)
    -> UpdateDetail
  {
    switch reads {
    case .oneBox(let queries, let appNo):
      try queries.update(appNo: appNo, updateId: updateId, range: range, test: test)
    case .cluster(let reports):
      try reports.update(appId: appId, updateId: updateId, range: range, test: test)
    }
  }

  /// One update's funnel; an upgrade must reach `targetVersion` when the
  /// configuration names one.
  func funnel(_ updateId: String, range: DayRange, test: TestFilter, targetVersion: String?)
    throws(StoreError) -> FunnelResult
  {
    switch reads {
    case .oneBox(let queries, let appNo):
      try queries.funnel(
        appNo: appNo, updateId: updateId, range: range, test: test, targetVersion: targetVersion)
    case .cluster(let reports):
      try reports.funnel(
        appId: appId, updateId: updateId, range: range, test: test, targetVersion: targetVersion)
    }
  }
}
