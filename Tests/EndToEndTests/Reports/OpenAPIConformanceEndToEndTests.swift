import Foundation
import Testing
import UptakeCore
import UptakeTestSupport

/// The real daemon's answers, held against `schema/openapi.json`: each is a
/// documented status with a documented content type and headers, and its
/// JSON body conforms to the documented schema. tools/schemathesis does the
/// same with generated input; these are the answers generated input rarely
/// reaches (stored data with nulls, rejections, every refusal).
@Suite("schema/openapi.json describes what uptaked answers", .timeLimit(.minutes(3)))
struct OpenAPIConformanceEndToEndTests {
  /// One request, and the documented operation it exercises.
  struct Exchange {
    let method: String
    /// The operation's path template in the document.
    let operation: String
    /// The path and query actually sent.
    let target: String
    var key: Key = .read
    var headers: [String: String] = [:]
    var body: String? = nil
    /// The status this exchange is meant to produce, so a wrong one is
    /// seen as such rather than validated against another schema.
    let status: Int
  }

  enum Key { case none, ingest, ingestHeader, read }

  @Test("reports with data, nulls, CSV and refusals; ingest results and errors; operations")
  func answersConform() throws {
    let document = try OpenAPIDocument.load()
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let days = Days()
    try fixture.post([
      eventJSON(
        id: "a1", updateId: "u1", appVersion: "1.0.0", installId: "i1",
        timestamp: days.time(-2, "10:00:00"), platform: "ios", osVersion: "17.4"),
      eventJSON(
        id: "a2", updateId: "u1", action: "download", appVersion: "1.0.0", installId: "i1",
        timestamp: days.time(-2, "11:00:00.250")),
      eventJSON(
        id: "a3", updateId: "u1", action: "later", appVersion: "1.1.0", installId: "i1",
        timestamp: days.time(-1, "09:00:00")),
      eventJSON(id: "a4", updateId: "u2", action: "ignore", appVersion: "2.0"),
    ])
    let range = "from=\(days.date(-5))&to=\(days.date(0))"
    let event = eventJSON(id: "b1")
    let json = ["Content-Type": "application/json"]

    let exchanges = [
      Exchange(
        method: "POST", operation: "/v1/events", target: "/v1/events", key: .ingest,
        headers: json, body: batchJSON([event, eventJSON(action: "clicked"), event]), status: 200),
      Exchange(
        method: "POST", operation: "/v1/events", target: "/v1/events", key: .ingestHeader,
        headers: json, body: "{", status: 400),
      Exchange(
        method: "POST", operation: "/v1/events", target: "/v1/events", key: .none,
        headers: json, body: batchJSON([event]), status: 401),
      Exchange(
        method: "POST", operation: "/v1/events", target: "/v1/events", key: .ingest,
        headers: json,
        body: batchJSON([
          String(event.dropLast()) + #","pad":"\#(String(repeating: "p", count: 33_000))"}"#
        ]),
        status: 413),
      Exchange(
        method: "POST", operation: "/v1/events", target: "/v1/events", key: .ingest,
        headers: ["Content-Type": "text/plain"], body: batchJSON([event]), status: 415),
      Exchange(
        method: "GET", operation: "/v1/updates", target: "/v1/updates?\(range)", status: 200),
      Exchange(
        method: "GET", operation: "/v1/updates", target: "/v1/updates?\(range)&format=csv",
        status: 200),
      Exchange(method: "GET", operation: "/v1/updates", target: "/v1/updates?from=x", status: 400),
      Exchange(
        method: "GET", operation: "/v1/updates", target: "/v1/updates", key: .ingest, status: 401),
      Exchange(
        method: "GET", operation: "/v1/updates/{updateId}", target: "/v1/updates/u1?\(range)",
        status: 200),
      Exchange(
        method: "GET", operation: "/v1/updates/{updateId}", target: "/v1/updates/none?\(range)",
        status: 200),
      Exchange(
        method: "GET", operation: "/v1/updates/{updateId}", target: "/v1/updates/u1",
        headers: ["Accept": "text/csv"], status: 200),
      Exchange(
        method: "GET", operation: "/v1/updates/{updateId}", target: "/v1/updates/u%20", status: 400),
      Exchange(
        method: "GET", operation: "/v1/updates/{updateId}/funnel",
        target: "/v1/updates/u1/funnel?\(range)", status: 200),
      Exchange(
        method: "GET", operation: "/v1/updates/{updateId}/funnel",
        target: "/v1/updates/u2/funnel?\(range)&test=only", status: 200),
      Exchange(
        method: "GET", operation: "/v1/report",
        target: "/v1/report?\(range)&groupBy=platform,osVersion,appVersion,date,updateId,action",
        status: 200),
      Exchange(
        method: "GET", operation: "/v1/report", target: "/v1/report?\(range)&granularity=hour",
        status: 200),
      Exchange(
        method: "GET", operation: "/v1/report", target: "/v1/report?groupBy=date,date", status: 400),
      Exchange(
        method: "GET", operation: "/v1/adoption", target: "/v1/adoption?\(range)", status: 200),
      Exchange(
        method: "GET", operation: "/v1/adoption", target: "/v1/adoption?test=maybe", status: 400),
      Exchange(method: "GET", operation: "/healthz", target: "/healthz", key: .none, status: 200),
      Exchange(method: "GET", operation: "/readyz", target: "/readyz", key: .none, status: 200),
      Exchange(method: "GET", operation: "/metrics", target: "/metrics", key: .none, status: 200),
      Exchange(method: "GET", operation: "/v1/app", target: "/v1/app", status: 200),
      Exchange(method: "GET", operation: "/v1/app", target: "/v1/app", key: .none, status: 401),
      Exchange(method: "GET", operation: "/", target: "/", key: .none, status: 200),
      Exchange(
        method: "GET", operation: "/dashboard/{file}", target: "/dashboard/chart.min.js",
        key: .none, status: 200),
      Exchange(
        method: "GET", operation: "/dashboard/{file}", target: "/dashboard/chart.min.js",
        key: .none, headers: ["If-None-Match": "*"], status: 304),
      Exchange(
        method: "GET", operation: "/dashboard/{file}", target: "/dashboard/none.js", key: .none,
        status: 404),
    ]

    let client = HTTPClient()
    for exchange in exchanges {
      var headers = exchange.headers
      switch exchange.key {
      case .none: break
      case .ingest: headers["Authorization"] = "Bearer \(fixture.ingestKey)"
      case .ingestHeader: headers["X-Uptake-Key"] = fixture.ingestKey
      case .read: headers["Authorization"] = "Bearer \(fixture.readKey)"
      }
      let response = try client.send(
        exchange.method, fixture.daemon.url(exchange.target), headers: headers,
        body: exchange.body.map { Data($0.utf8) })
      #expect(
        response.status == exchange.status,
        "\(exchange.method) \(exchange.target): \(response.status) \(response.text)")
      document.expectConforms(response, exchange.method, exchange.operation)
    }
  }

  @Test("refusals outside any operation have the documented error body")
  func unroutedErrors() throws {
    let document = try OpenAPIDocument.load()
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let error = try #require(document.componentSchema("Error"))
    let client = HTTPClient()
    for (method, path, status) in [("GET", "/v1/nothing", 404), ("PUT", "/v1/events", 405)] {
      let response = try client.send(method, fixture.daemon.url(path))
      #expect(response.status == status)
      let body = try JSONParser().parse(Array(response.body))
      #expect(document.violations(of: body, against: error) == [], "\(method) \(path)")
    }
  }

  @Test("every example in the document conforms to its own schema")
  func examplesConform() throws {
    let document = try OpenAPIDocument.load()
    var checked = 0
    func visit(_ value: JSONValue, _ location: String) {
      guard case .object(let members) = value else {
        if case .array(let elements) = value {
          for (index, element) in elements.enumerated() { visit(element, "\(location)[\(index)]") }
        }
        return
      }
      if let example = value["example"], let schema = value["schema"] {
        checked += 1
        let found = document.violations(of: example, against: schema)
        #expect(found.isEmpty, "\(location): \(found.joined(separator: "; "))")
      }
      for (name, member) in members { visit(member, "\(location)/\(name)") }
    }
    visit(document.root, "#")
    #expect(checked >= 2, "the examples of POST /v1/events were found")
  }

  @Test("the checker itself refuses what breaks a schema")
  func checkerFindsViolations() throws {
    let document = try OpenAPIDocument.load()
    let result = try #require(document.componentSchema("IngestResult"))
    let parse = { (text: String) in try JSONParser().parse(Array(text.utf8)) }
    #expect(
      document.violations(
        of: try parse(#"{"accepted":1,"duplicates":0,"rejected":[{"index":0,"error":"x"}]}"#),
        against: result) == [])
    #expect(
      document.violations(of: try parse(#"{"accepted":1,"duplicates":0}"#), against: result)
        == ["$: no member rejected"])
    #expect(
      document.violations(
        of: try parse(#"{"accepted":-1,"duplicates":0.5,"rejected":[],"extra":1}"#),
        against: result
      ).sorted()
        == [
          "$.accepted: minimum 0 broken by -1.0", "$.duplicates: 0.5 is not integer",
          "$: unexpected member extra",
        ])
    let funnel = try #require(document.componentSchema("Funnel"))
    #expect(
      document.violations(
        of: try parse(
          #"{"impressions":0,"downloads":0,"upgraded":0,"medianHoursToUpgrade":"1"}"#),
        against: funnel) == [#"$.medianHoursToUpgrade: "1" is not number or null"#])
  }
}
