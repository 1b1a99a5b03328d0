import Testing
import UptakeCore

@testable import UptakeStore

/// Every report of one app over one range under one test filter, as the
/// reference has them: worked out once, then compared whole with each store
/// holding the same events, however they arrived there.
struct ExpectedReports {
  private(set) var appNo: Int64
  let range: DayRange
  let test: TestFilter
  let queried: QueriedIds
  private let updates: [UpdateSummary]
  /// By `queried.updateIds`.
  private let details: [[String]]
  let groupings: [([GroupKey], Granularity)]
  /// By `groupings`.
  private let grouped: [[GroupedRow]]
  private let adoption: [AdoptionRow]
  /// By `queried.funnels`, then by their targets.
  private let funnels: [[FunnelResult]]

  init(
    _ reference: ReportReference, appNo: Int64, range: DayRange, test: TestFilter,
    queried: QueriedIds, groupings: [([GroupKey], Granularity)] = ReferenceWorld.groupings
  ) {
    (self.appNo, self.range, self.test, self.queried) = (appNo, range, test, queried)
    self.groupings = groupings
    let scope = reference.scope(appNo: appNo, range: range, test: test)
    updates = scope.updates()
    details = queried.updateIds.map { scope.update($0).lines }
    grouped = groupings.map { scope.grouped($0.0, $0.1) }
    adoption = scope.adoption()
    funnels = queried.funnels.map { funnel in
      funnel.targets.map { scope.funnel(funnel.updateId, targetVersion: $0) }
    }
  }

  /// The same reports for another app that holds the same events.
  func forApp(_ appNo: Int64) -> ExpectedReports {
    var reports = self
    reports.appNo = appNo
    return reports
  }

  /// Asks `store` for every report and has `comparison` record each that
  /// differs; `context` says which state, app, range and filter.
  func check(
    _ store: StoreUnderTest, _ context: String, _ comparison: ReportComparison,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let (queries, appNo, range, test) = (store.queries, appNo, range, test)
    comparison.compare(
      "updates", store, context, expected: updates, sourceLocation: sourceLocation
    ) {
      try queries.updates(appNo: appNo, range: range, test: test)
    }
    for (updateId, expected) in zip(queried.updateIds, details) {
      comparison.compare(
        "update", store, "\(context), update \(updateId)", expected: expected,
        sourceLocation: sourceLocation
      ) {
        try queries.update(appNo: appNo, updateId: updateId, range: range, test: test).lines
      }
    }
    for ((keys, granularity), expected) in zip(groupings, grouped) {
      let groupBy = keys.map(\.rawValue).joined(separator: ",")
      comparison.compare(
        "grouped", store, "\(context), groupBy=\(groupBy) granularity=\(granularity)",
        expected: expected, sourceLocation: sourceLocation
      ) {
        try queries.grouped(
          appNo: appNo, keys: keys, granularity: granularity, range: range, test: test)
      }
    }
    comparison.compare(
      "adoption", store, context, expected: adoption, sourceLocation: sourceLocation
    ) {
      try queries.adoption(appNo: appNo, range: range, test: test)
    }
    for (funnel, expected) in zip(queried.funnels, funnels) {
      for (target, result) in zip(funnel.targets, expected) {
        comparison.compare(
          "funnel", store,
          "\(context), funnel \(funnel.updateId) targetVersion=\(target ?? "nil")",
          expected: [result], sourceLocation: sourceLocation
        ) {
          [
            try queries.funnel(
              appNo: appNo, updateId: funnel.updateId, range: range, test: test,
              targetVersion: target)
          ]
        }
      }
    }
  }
}
