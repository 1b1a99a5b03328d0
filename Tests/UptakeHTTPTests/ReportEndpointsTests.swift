import Testing
import UptakeCore
import UptakeStore

@testable import UptakeHTTP

@Suite("Report endpoints through the router, on a fixed clock")
struct ReportEndpointsTests {
  @Test("GET /v1/report: default keys, JSON rows and CSV with the same columns")
  func groupedReport() throws {
    try ReportFixture.with { (fixture) throws in
      let json = fixture.get("/v1/report")
      let csv = fixture.get("/v1/report", query: ["format": "csv"])

      #expect(json.status == 200)
      #expect(
        json.bodyText
          == """
          {"rows":[{"date":"2026-03-14","updateId":"u1","action":"impression","events":2,"installs":2},\
          {"date":"2026-03-15","updateId":"u1","action":"download","events":1,"installs":1}]}
          """)
      #expect(
        csv.bodyText
          == "date,updateId,action,events,installs\r\n"
          + "2026-03-14,u1,impression,2,2\r\n2026-03-15,u1,download,1,1\r\n")
    }
  }

  @Test("granularity=hour gives YYYY-MM-DDTHH dates")
  func hourly() throws {
    try ReportFixture.with { (fixture) throws in
      let response = fixture.get("/v1/report", query: ["groupBy": "date", "granularity": "hour"])

      #expect(
        response.bodyText
          == """
          {"rows":[{"date":"2026-03-14T09","events":1,"installs":1},\
          {"date":"2026-03-14T23","events":1,"installs":1},\
          {"date":"2026-03-15T00","events":1,"installs":1}]}
          """)
    }
  }

  @Test(
    "bad parameters are 400 with a message naming the parameter",
    arguments: [
      (
        ["groupBy": "date,nope"],
        #"groupBy: unknown key "nope" (use date, updateId, action, appVersion, platform, osVersion)"#
      ),
      (["groupBy": "date,date"], #"groupBy: "date" given twice"#),
      (["granularity": "week"], "granularity: use day or hour"),
      (["from": "2026-02-30"], "from: not a date (use YYYY-MM-DD)"),
      (["from": "2026-03-15", "to": "2026-03-14"], "from: after to"),
    ])
  func badParameters(query: [String: String], message: String) throws {
    try ReportFixture.with { (fixture) throws in
      let response = fixture.get("/v1/report", query: query)

      let error = try JSONParser().parse(response.body)["error"]
      #expect(response.status == 400)
      #expect(error?["code"] == .string("bad_request"))
      #expect(error?["message"] == .string(message))
    }
  }

  @Test("the funnel route sits under its update; other paths below it are 404")
  func funnelRoute() throws {
    try ReportFixture.with { (fixture) throws in
      let funnel = fixture.get("/v1/updates/u1/funnel")
      let csv = fixture.get("/v1/updates/u1/funnel", query: ["format": "csv"])
      let badId = fixture.get("/v1/updates/u%201/funnel")

      #expect(funnel.status == 200)
      #expect(
        funnel.bodyText
          == #"{"impressions":2,"downloads":1,"upgraded":0,"medianHoursToUpgrade":null}"#)
      #expect(csv.bodyText == "impressions,downloads,upgraded,medianHoursToUpgrade\r\n2,1,0,\r\n")
      #expect(badId.status == 400)
      #expect(fixture.get("/v1/updates/u1/funnels").status == 404)
      #expect(fixture.get("/v1/updates/u1/funnel/x").status == 404)
    }
  }

  @Test("GET /v1/adoption: rows per date and version with their share")
  func adoption() throws {
    try ReportFixture.with { (fixture) throws in
      let response = fixture.get("/v1/adoption", query: ["format": "csv"])

      #expect(
        response.bodyText
          == "date,appVersion,installs,share\r\n"
          + "2026-03-14,1.0,1,0.5\r\n2026-03-14,1.1,1,0.5\r\n2026-03-15,1.1,1,1\r\n")
    }
  }

  @Test("GET /v1/app names the read key's app; without a read key it is 401")
  func app() throws {
    try ReportFixture.with { (fixture) throws in
      let named = fixture.get("/v1/app")
      let keyless = fixture.getWithoutKey("/v1/app")

      #expect(named.status == 200)
      #expect(named.header("Content-Type") == "application/json")
      #expect(named.bodyText == #"{"appId":"shop"}"#)
      #expect(keyless.status == 401)
      #expect(keyless.header("WWW-Authenticate") == "Bearer")
    }
  }

  @Test(
    "the updates reports carry the configured rolloutPercent, null for an update no entry names")
  func rolloutPercent() throws {
    let configuration = """
      {"updates": [{"updateId": "u1", "platform": "android", "latestVersion": "2.0",
        "storeUrl": "market://details?id=com.example", "option": "flexible",
        "rolloutPercent": 12.5, "texts": {"en": {"title": "T", "description": "D",
        "updateNow": "U", "remindMeLater": "L", "ignore": "I"}}}]}
      """
    try ReportFixture.with(configuration: configuration) { (fixture) throws in
      let list = fixture.get("/v1/updates")
      let csv = fixture.get("/v1/updates", query: ["format": "csv"])
      let one = fixture.get("/v1/updates/u1")
      let unnamed = fixture.get("/v1/updates/u2")

      #expect(
        list.bodyText
          == """
          {"updates":[{"updateId":"u1","firstSeen":"2026-03-14T09:00:00Z",\
          "lastSeen":"2026-03-15T00:10:00Z","impression":2,"download":1,"later":0,"ignore":0,\
          "platform":"android","targetVersion":"2.0","option":"flexible","rolloutPercent":12.5}]}
          """)
      #expect(
        csv.bodyText
          == "updateId,firstSeen,lastSeen,impression,download,later,ignore,"
          + "platform,targetVersion,option,rolloutPercent\r\n"
          + "u1,2026-03-14T09:00:00Z,2026-03-15T00:10:00Z,2,1,0,0,android,2.0,flexible,12.5\r\n"
      )
      #expect(
        one.bodyText.hasSuffix(
          #","platform":"android","targetVersion":"2.0","option":"flexible","rolloutPercent":12.5}"#
        ))
      #expect(
        unnamed.bodyText.hasSuffix(
          #","platform":null,"targetVersion":null,"option":null,"rolloutPercent":null}"#))
    }
  }

  @Test("a table writes fractions the same in JSON and CSV, and null as an empty cell")
  func tableCells() {
    var table = ReportTable(columns: ["name", "count", "share"])
    table.append([.text("a"), .count(3), .fraction(2.0 / 3.0)])
    table.append([.text(nil), .count(0), .fraction(nil)])
    var json = JSONWriter()
    table.writeRows(into: &json)

    #expect(table.csv == "name,count,share\r\na,3,0.666667\r\n,0,\r\n")
    #expect(
      json.text
        == #"[{"name":"a","count":3,"share":0.666667},{"name":null,"count":0,"share":null}]"#)
  }
}

/// The report routes over a database with app "shop" and three events, on
/// a clock stopped at 2026-03-15T12:00:00Z:
///
///     2026-03-14T09:00Z  u1  impression  1.0  i1
///     2026-03-14T23:30Z  u1  impression  1.1  i2
///     2026-03-15T00:10Z  u1  download    1.1  i2
struct ReportFixture {
  static let nowMs: Int64 = 1_773_576_000_000

  let router: Router
  let readKey: String

  /// `configuration`, when given, is put as the app's live update
  /// configuration first.
  static func with(configuration: String? = nil, _ body: (ReportFixture) throws -> Void) throws {
    let shop = try ShopDatabase()
    defer { shop.remove() }
    if let configuration {
      try UpdateConfigStore.put(
        try UpdateConfigurationDecoder.decode(Array(configuration.utf8)).get(),
        appNo: shop.appNo, in: shop.database, nowMs: nowMs)
    }
    let inserter = EventInserter(database: shop.database)
    let hour: Int64 = 3_600_000
    _ = try inserter.insert([
      EventBatch(
        appNo: shop.appNo,
        events: [
          Event(
            id: "1", updateId: "u1", action: .impression, appVersion: "1.0", installId: "i1",
            timestampMs: nowMs - 27 * hour),
          Event(
            id: "2", updateId: "u1", action: .impression, appVersion: "1.1", installId: "i2",
            timestampMs: nowMs - 12 * hour - hour / 2),
          Event(
            id: "3", updateId: "u1", action: .download, appVersion: "1.1", installId: "i2",
            timestampMs: nowMs - 12 * hour + hour / 6),
        ], receivedAtMs: nowMs)
    ])
    let handlers = ReportHandlers(
      pool: try ConnectionPool(path: shop.databasePath, size: 1), clock: { nowMs },
      workers: ReportWorkers(concurrency: 1))
    try body(
      ReportFixture(
        router: Router(routes: handlers.routes, keys: try shop.keyDirectory()),
        readKey: shop.keys.readKey))
  }

  /// GETs `path` with the read key.
  func get(_ path: String, query: [String: String] = [:]) -> Response {
    let head = RequestHead(
      method: "GET", path: path, query: query, headers: ["Authorization": "Bearer \(readKey)"])
    return router.handle(Request(head: head)).response()
  }

  /// GETs `path` without a key.
  func getWithoutKey(_ path: String) -> Response {
    router.handle(Request(head: RequestHead(method: "GET", path: path))).response()
  }
}
