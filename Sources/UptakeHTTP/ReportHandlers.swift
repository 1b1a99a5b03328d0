import UptakeCore
import UptakeStore

/// The report endpoints. Each reads through a pooled connection, in one read
/// transaction, and answers JSON or CSV.
struct ReportHandlers: Sendable {
  let pool: ConnectionPool
  let clock: @Sendable () -> Int64

  var routes: [Route] {
    [
      Route("GET", "/v1/updates", access: .readKey) { request in .respond(updates(request)) },
      Route("GET", "/v1/updates/{updateId}", access: .readKey) { request in
        .respond(update(request))
      },
    ]
  }

  func updates(_ request: Request) -> Response {
    run(request) { (parameters, app, database) throws(StoreError) -> Response in
      let updates = try ReportQueries(database: database).updates(
        appNo: app.appNo, range: parameters.range, test: parameters.test)
      let counts = Action.allCases
      if parameters.wantsCSV {
        var csv = CSVWriter()
        csv.writeRow(["updateId", "firstSeen", "lastSeen"] + counts.map(\.name))
        for update in updates {
          csv.writeRow(
            [
              update.updateId, Timestamp.formatRFC3339(update.firstSeenMs),
              Timestamp.formatRFC3339(update.lastSeenMs),
            ] + update.events.map(String.init))
        }
        return .csv(csv.text)
      }
      var json = JSONWriter()
      json.beginObject()
      json.key("updates")
      json.beginArray()
      for update in updates {
        json.beginObject()
        json.member("updateId", update.updateId)
        json.member("firstSeen", Timestamp.formatRFC3339(update.firstSeenMs))
        json.member("lastSeen", Timestamp.formatRFC3339(update.lastSeenMs))
        for action in counts { json.member(action.name, update.events[action.rawValue]) }
        json.endObject()
      }
      json.endArray()
      json.endObject()
      return .json(json)
    }
  }

  func update(_ request: Request) -> Response {
    let updateId = request.pathParameters[0]
    guard UpdateID.isValid(updateId) else {
      return APIError.badRequest("updateId: use 1 to 64 of A-Z a-z 0-9 . _ : -").response
    }
    return run(request) { (parameters, app, database) throws(StoreError) -> Response in
      let detail = try ReportQueries(database: database).update(
        appNo: app.appNo, updateId: updateId, range: parameters.range, test: parameters.test)
      if parameters.wantsCSV {
        var csv = CSVWriter()
        csv.writeRow(["date"] + Action.allCases.map(\.name))
        for day in detail.days {
          csv.writeRow([Timestamp.formatDate(dayNumber: day.day)] + day.events.map(String.init))
        }
        return .csv(csv.text)
      }
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
      json.beginArray()
      for day in detail.days {
        json.beginObject()
        json.member("date", Timestamp.formatDate(dayNumber: day.day))
        for action in Action.allCases { json.member(action.name, day.events[action.rawValue]) }
        json.endObject()
      }
      json.endArray()
      json.endObject()
      return .json(json)
    }
  }

  /// Parses the common parameters, runs `body` on a pooled connection, and
  /// turns failures into the contract's error responses.
  private func run(
    _ request: Request,
    _ body: (ReportRequest, AppRecord, Database) throws(StoreError) -> Response
  ) -> Response {
    guard let app = request.app else { return APIError.unauthorized.response }
    let parameters: ReportRequest
    switch ReportRequest.parse(request, nowMs: clock()) {
    case .success(let parsed): parameters = parsed
    case .failure(let error): return error.response
    }
    do {
      return try pool.withConnection { (database) throws(StoreError) -> Response in
        try body(parameters, app, database)
      }
    } catch {
      if error.isUnavailable {
        return APIError.unavailable("storage busy", retryAfterSeconds: 1).response
      }
      return APIError.internalError.response
    }
  }
}
