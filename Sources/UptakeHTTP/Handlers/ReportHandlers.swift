import UptakeCluster
import UptakeCore
import UptakeStore

/// The report endpoints. Each reads through a pooled connection, in one read
/// transaction, and answers JSON or CSV.
struct ReportHandlers: Sendable {
  let pool: ConnectionPool
  let clock: @Sendable () -> Int64
  let workers: ReportWorkers
  /// Failures that become 500 are logged here, with SQLite's message.
  var logger = Logger()
  /// A report still reading after this is stopped and answered 503.
  var timeLimitSeconds = ServerLimits().reportTimeLimitSeconds
  /// A report holding more rows than this is answered 413.
  var maxRows = ServerLimits().maxReportRows
  /// A report holding more distinct installs than this is answered 413.
  var maxInstalls = ServerLimits().maxReportInstalls
  /// While more events than this are stored and not folded, reports are
  /// answered 503 (`ReportQueries.maxUnfoldedEvents`); nil for no bound.
  var maxUnfoldedEvents: Int? = nil
  /// While answers of more bytes than this wait for slow readers, reports
  /// are answered 503.
  var maxAnswerBacklogBytes = ServerLimits().maxAnswerBacklogBytes
  /// As a node over a cluster, where the reports read events; the node's
  /// own database still holds the apps and configurations.
  var cluster: ClusterReports?

  /// The report queries on `database`, bounded by this handler's limits.
  private func queries(_ database: Database) -> ReportQueries {
    ReportQueries(
      database: database, maxRows: maxRows, maxInstalls: maxInstalls,
      maxUnfoldedEvents: maxUnfoldedEvents)
  }

  var routes: [Route] {
    [
      Route("GET", "/v1/updates", access: .readKey) { request in
        workers.outcome(appNo: request.app?.appNo ?? 0) { updates(request) }
      },
      Route("GET", "/v1/updates/{updateId}", access: .readKey) { request in
        workers.outcome(appNo: request.app?.appNo ?? 0) { update(request) }
      },
      Route("GET", "/v1/updates/{updateId}/funnel", access: .readKey) { request in
        workers.outcome(appNo: request.app?.appNo ?? 0) { funnel(request) }
      },
      Route("GET", "/v1/report", access: .readKey) { request in
        workers.outcome(appNo: request.app?.appNo ?? 0) { report(request) }
      },
      Route("GET", "/v1/adoption", access: .readKey) { request in
        workers.outcome(appNo: request.app?.appNo ?? 0) { adoption(request) }
      },
      // Answered at once: the key has named the app already.
      Route("GET", "/v1/app", access: .readKey) { .respond(app($0)) },
    ]
  }

  /// `GET /v1/app`: the app the read key names, so a page signed in with a
  /// key can say whose reports it shows.
  func app(_ request: Request) -> Response {
    guard let app = request.app else { return APIError.unauthorized.response }
    var json = JSONWriter()
    json.beginObject()
    json.member("appId", app.appId)
    json.endObject()
    return .json(json)
  }

  /// `GET /v1/updates`: every update with events in the range.
  func updates(_ request: Request) -> Response {
    run(request) { (parameters, app, database) throws(StoreError) -> Response in
      let updates =
        if let cluster {
          try cluster.updates(appId: app.appId, range: parameters.range, test: parameters.test)
        } else {
          try queries(database).updates(
            appNo: app.appNo, range: parameters.range, test: parameters.test)
        }
      let configuration = try UpdateConfigStore.live(appNo: app.appNo, in: database)?
        .configuration
      var table = ReportTable(
        columns: ["updateId", "firstSeen", "lastSeen"] + Action.allCases.map(\.name)
          + Self.configurationColumns)
      for update in updates {
        table.append(
          [
            .text(update.updateId), .text(Timestamp.formatRFC3339(update.firstSeenMs)),
            .text(Timestamp.formatRFC3339(update.lastSeenMs)),
          ] + update.events.map { .count($0) }
            + Self.configurationCells(configuration?.entry(updateId: update.updateId)))
      }
      return table.response(parameters, rowsKey: "updates")
    }
  }

  /// `GET /v1/updates/{updateId}`: one update by action and by day. Its CSV
  /// lists the days.
  func update(_ request: Request) -> Response {
    withUpdateId(request) { (updateId, parameters, app, database) throws(StoreError) -> Response in
      let detail =
        if let cluster {
          try cluster.update(
            appId: app.appId, updateId: updateId, range: parameters.range, test: parameters.test)
        } else {
          try queries(database).update(
            appNo: app.appNo, updateId: updateId, range: parameters.range, test: parameters.test)
        }
      var days = ReportTable(columns: ["date"] + Action.allCases.map(\.name))
      for day in detail.days {
        days.append(
          [.text(Timestamp.formatDate(dayNumber: day.day))] + day.events.map { .count($0) })
      }
      if parameters.wantsCSV { return .csv(days.csv) }
      var json = JSONWriter()
      json.beginObject()
      json.member("updateId", detail.updateId)
      json.key("actions")
      json.beginObject()
      for action in Action.allCases {
        json.key(action.name)
        json.beginObject()
        json.member("events", detail.actions[action.rawValue].events)
        json.member("installs", detail.actions[action.rawValue].installs)
        json.endObject()
      }
      json.endObject()
      json.member("downloadRate", detail.rate(.download))
      json.member("laterRate", detail.rate(.later))
      json.member("ignoreRate", detail.rate(.ignore))
      json.key("days")
      days.writeRows(into: &json)
      let entry = try UpdateConfigStore.liveEntry(
        appNo: app.appNo, updateId: updateId, in: database)
      for (name, cell) in zip(Self.configurationColumns, Self.configurationCells(entry)) {
        json.key(name)
        cell.write(into: &json)
      }
      Self.writeStoreLag(
        try StoreLag.of(appNo: app.appNo, entry: entry, in: database), nowMs: clock(),
        into: &json)
      json.endObject()
      return .json(json)
    }
  }

  /// `GET /v1/updates/{updateId}/funnel`: installs from impression to
  /// download to a higher version.
  func funnel(_ request: Request) -> Response {
    withUpdateId(request) { (updateId, parameters, app, database) throws(StoreError) -> Response in
      // The live entry once: its latestVersion is the upgrade's target,
      // its appStore the store lag's countries.
      let entry = try UpdateConfigStore.liveEntry(
        appNo: app.appNo, updateId: updateId, in: database)
      let funnel =
        if let cluster {
          try cluster.funnel(
            appId: app.appId, updateId: updateId, range: parameters.range, test: parameters.test,
            targetVersion: entry?.latestVersion.text)
        } else {
          try queries(database)
            .funnel(
              appNo: app.appNo, updateId: updateId, range: parameters.range,
              test: parameters.test, targetVersion: entry?.latestVersion.text)
        }
      var table = ReportTable(
        columns: ["impressions", "downloads", "upgraded", "medianHoursToUpgrade"])
      table.append([
        .count(funnel.impressions), .count(funnel.downloads), .count(funnel.upgraded),
        .fraction(funnel.medianHoursToUpgrade),
      ])
      let lags = try StoreLag.of(appNo: app.appNo, entry: entry, in: database)
      let now = clock()
      return table.singleRowResponse(parameters) { Self.writeStoreLag(lags, nowMs: now, into: &$0) }
    }
  }

  /// `storeLag`, for an update whose entry watches the App Store: per
  /// country, how long after the configuration named the version the store
  /// served it past the grace (issue 24). Absent for any other update.
  static func writeStoreLag(_ lags: [StoreLag], nowMs: Int64, into json: inout JSONWriter) {
    guard !lags.isEmpty else { return }
    json.key("storeLag")
    json.beginArray()
    for lag in lags {
      json.beginObject()
      json.member("country", lag.country)
      json.member("version", lag.version.text)
      json.member("configuredAt", Timestamp.formatRFC3339(lag.configuredAtMs))
      json.key("firstSeen")
      if let seen = lag.firstSeenMs {
        json.value(Timestamp.formatRFC3339(seen))
      } else {
        json.null()
      }
      json.key("liveSince")
      if let live = lag.liveSinceMs {
        json.value(Timestamp.formatRFC3339(live))
      } else {
        json.null()
      }
      json.member("lagHours", lag.lagHours(nowMs: nowMs))
      json.endObject()
    }
    json.endArray()
  }

  /// `GET /v1/report?groupBy=K1,K2&granularity=day|hour`: events and
  /// installs grouped by the keys, in their order.
  func report(_ request: Request) -> Response {
    var keys = GroupKey.defaultGrouping
    if let text = request.query("groupBy") {
      switch GroupKey.parseList(text) {
      case .success(let parsed): keys = parsed
      case .failure(let error): return APIError.badRequest(error.message).response
      }
    }
    var granularity = Granularity.day
    if let text = request.query("granularity") {
      guard let parsed = Granularity(rawValue: text) else {
        return APIError.badRequest("granularity: use day or hour").response
      }
      granularity = parsed
    }
    return run(request) { (parameters, app, database) throws(StoreError) -> Response in
      let rows =
        if let cluster {
          try cluster.grouped(
            appId: app.appId, keys: keys, granularity: granularity, range: parameters.range,
            test: parameters.test)
        } else {
          try queries(database)
            .grouped(
              appNo: app.appNo, keys: keys, granularity: granularity, range: parameters.range,
              test: parameters.test)
        }
      var table = ReportTable(columns: keys.map(\.rawValue) + ["events", "installs"])
      for row in rows {
        table.append(row.keys.map { .text($0) } + [.count(row.events), .count(row.installs)])
      }
      return table.response(parameters, rowsKey: "rows")
    }
  }

  /// `GET /v1/adoption`: installs per day and app version, with their share
  /// of the day's installs, and (JSON only) the versions in version order.
  func adoption(_ request: Request) -> Response {
    run(request) { (parameters, app, database) throws(StoreError) -> Response in
      let rows =
        if let cluster {
          try cluster.adoption(appId: app.appId, range: parameters.range, test: parameters.test)
        } else {
          try queries(database)
            .adoption(appNo: app.appNo, range: parameters.range, test: parameters.test)
        }
      var table = ReportTable(columns: ["date", "appVersion", "installs", "share"])
      for row in rows {
        table.append([
          .text(Timestamp.formatDate(dayNumber: row.day)), .text(row.appVersion),
          .count(row.installs), .fraction(row.share),
        ])
      }
      // Every version of the rows once, in version order: a chart stacks
      // them so without ordering versions itself.
      var seen = Set<String>()
      let versions = rows.map(\.appVersion).filter { seen.insert($0).inserted }
        .sorted(by: VersionOrder.areInIncreasingOrder)
      return table.response(parameters, rowsKey: "rows") { json in
        json.key("versions")
        json.beginArray()
        for version in versions { json.value(version) }
        json.endArray()
      }
    }
  }

  /// What the live update configuration says of an update, added after the
  /// contract's columns (null when no entry names the update): the
  /// platform, the version the prompt leads to, the option, and the share
  /// of installs the prompt reaches.
  private static let configurationColumns = [
    "platform", "targetVersion", "option", "rolloutPercent",
  ]

  private static func configurationCells(_ entry: UpdateEntry?) -> [ReportTable.Cell] {
    [
      .text(entry?.platform.rawValue), .text(entry?.latestVersion.text), .text(entry?.option.name),
      .fraction(entry?.rolloutPercent),
    ]
  }

  /// `run` for the routes under `/v1/updates/{updateId}`, which first check
  /// the update's name.
  private func withUpdateId(
    _ request: Request,
    _ body: (String, ReportRequest, AppRecord, Database) throws(StoreError) -> Response
  ) -> Response {
    let updateId = request.pathParameters[0]
    guard UpdateID.isValid(updateId) else {
      return APIError.badRequest("updateId: use 1 to 64 of A-Z a-z 0-9 . _ : -").response
    }
    return run(request) { (parameters, app, database) throws(StoreError) -> Response in
      try body(updateId, parameters, app, database)
    }
  }

  /// Parses the common parameters, runs `body` on a pooled connection, and
  /// turns failures into the contract's error responses.
  private func run(
    _ request: Request,
    _ body: (ReportRequest, AppRecord, Database) throws(StoreError) -> Response
  ) -> Response {
    guard let app = request.app else { return APIError.unauthorized.response }
    if AnswerBacklog.backlog > maxAnswerBacklogBytes {
      return APIError.unavailable(
        "answers of \(AnswerBacklog.backlog >> 20) MiB are still being sent to slow readers;"
          + " retry shortly",
        retryAfterSeconds: 2
      ).response
    }
    let parameters: ReportRequest
    switch ReportRequest.parse(request, nowMs: clock()) {
    case .success(let parsed): parameters = parsed
    case .failure(let error): return error.response
    }
    do {
      return try pool.withConnection { (database) throws(StoreError) -> Response in
        try database.withTimeLimit(seconds: timeLimitSeconds) { () throws(StoreError) in
          try body(parameters, app, database)
        }
      }
    } catch {
      if error.isInterrupted {
        return APIError.unavailable(
          "report ran past its \(Self.format(timeLimitSeconds)) s time limit; ask for a shorter range",
          retryAfterSeconds: 5
        ).response
      }
      if error.isUnavailable {
        return APIError.unavailable("storage busy", retryAfterSeconds: 1).response
      }
      if case .clusterUnavailable(let message) = error {
        return APIError.unavailable(
          "the cluster cannot answer in full, and a report never answers with part of the"
            + " events: \(message)",
          retryAfterSeconds: 5
        ).response
      }
      if case .foldBehind(let unfolded, _) = error {
        return APIError.unavailable(
          "\(unfolded) stored events are not folded into the report aggregates yet, more than"
            + " a report reads at once (as after an upgrade that folds every event again);"
            + " reports answer once the fold catches up (uptake_unfolded_events in /metrics)",
          retryAfterSeconds: 10
        ).response
      }
      if case .reportTooManyInstalls(let maxInstalls) = error {
        return APIError.payloadTooLarge(
          "the report holds more than \(maxInstalls) distinct installs at once;"
            + " ask for a shorter range"
        ).response
      }
      if case .reportTooLarge(let maxRows) = error {
        return APIError.payloadTooLarge(
          "the report holds more than \(maxRows) rows (the grouping's key combinations);"
            + " ask for a shorter range or fewer keys"
        ).response
      }
      // The route, not the path: the path is the client's text (an update
      // id of its choosing, up to the head's size), and the route says
      // which report failed just as well.
      logger.error(
        "report failed", ["route": request.routePattern ?? "other", "error": error.description])
      return APIError.internalError.response
    }
  }

  /// Seconds as a person writes them: 30, 0.5.
  private static func format(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
  }
}
