import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeHTTP

@Suite("Dashboard: the page and its files, open, typed, tagged and kept to their origin")
struct DashboardHandlersTests {
  /// The headers every dashboard answer carries, 404 included.
  static let securityHeaders = DashboardHeaders.security

  static let files = [
    (name: "index.html", text: "<!doctype html><title>Uptake</title>\n"),
    (name: "main.js", text: "import { h } from './dom.js';\n"),
    (name: "dashboard.css", text: "body { margin: 0 }\n"),
  ]

  /// A router over the dashboard's routes alone: no keys at all, so any
  /// route that wanted one would answer 401.
  static func router(_ files: [(name: String, text: String)] = files) -> Router {
    Router(routes: DashboardHandlers(assets: DashboardAssets(files: files)).routes, keys: nil)
  }

  static func get(
    _ router: Router, _ path: String, method: String = "GET", headers: [String: String] = [:]
  ) -> Response {
    router.handle(Request(head: RequestHead(method: method, path: path, headers: headers)))
      .immediateResponse ?? Response(status: 0)
  }

  @Test("GET / is index.html and GET /dashboard/{file} any file, without a key")
  func pageAndFiles() {
    let router = Self.router()
    let page = Self.get(router, "/")
    let script = Self.get(router, "/dashboard/main.js")
    let head = Self.get(router, "/dashboard/dashboard.css", method: "HEAD")

    #expect(page.status == 200)
    #expect(page.bodyText == "<!doctype html><title>Uptake</title>\n")
    #expect(page.header("Content-Type") == "text/html; charset=utf-8")
    #expect(page.header("Cache-Control") == "no-cache")
    #expect(Self.get(router, "/dashboard/index.html").body == page.body)
    #expect(script.status == 200)
    #expect(script.bodyText == "import { h } from './dom.js';\n")
    #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
    #expect(head.status == 200, "HEAD is served by the GET route")
    for response in [page, script, head] {
      for (name, value) in Self.securityHeaders {
        #expect(response.header(name) == value, "\(name)")
      }
    }
  }

  @Test("the tag is strong, the bytes' hash; If-None-Match naming it is 304 without a body")
  func notModified() throws {
    let router = Self.router()
    let page = Self.get(router, "/")
    let etag = try #require(page.header("ETag"))
    #expect(etag == RenderedAnswer(body: Array(Self.files[0].text.utf8)).etag)
    #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
    #expect(Self.get(router, "/dashboard/main.js").header("ETag") != etag)

    for tags in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
      let answer = Self.get(router, "/", headers: ["If-None-Match": tags])
      #expect(answer.status == 304, "\(tags)")
      #expect(answer.body.isEmpty)
      #expect(answer.header("ETag") == etag)
      #expect(answer.header("Cache-Control") == "no-cache")
      #expect(
        answer.header("Content-Security-Policy") == Self.securityHeaders["Content-Security-Policy"])
    }
    #expect(Self.get(router, "/", headers: ["If-None-Match": "\"other\""]).status == 200)
  }

  @Test("a name the binary does not hold is the usual 404, with the security headers")
  func unknownFile() {
    let router = Self.router()
    for path in ["/dashboard/nope.js", "/dashboard/", "/dashboard/a/main.js", "/dashboard"] {
      let response = Self.get(router, path)
      #expect(response.status == 404, "\(path)")
      #expect(response.bodyText == #"{"error":{"code":"not_found","message":"no such path"}}"#)
    }
    let unknown = Self.get(router, "/dashboard/nope.js")
    for (name, value) in Self.securityHeaders {
      #expect(unknown.header(name) == value, "\(name)")
    }
    #expect(Self.get(router, "/", method: "POST").status == 405)
  }

  @Test("without an index.html, GET / is 404 and the other files are still served")
  func noPage() {
    let router = Self.router([(name: "main.js", text: "")])
    #expect(Self.get(router, "/").status == 404)
    #expect(Self.get(router, "/dashboard/main.js").status == 200)
  }

  @Test(
    "the content type follows the extension",
    arguments: [
      ("index.html", "text/html; charset=utf-8"), ("a.css", "text/css; charset=utf-8"),
      ("a.js", "text/javascript; charset=utf-8"),
      ("chart.min.js", "text/javascript; charset=utf-8"),
      ("icon.svg", "image/svg+xml"), ("data.json", "application/json"),
      ("A.HTML", "text/html; charset=utf-8"), ("notes.txt", "text/plain; charset=utf-8"),
      ("README", "text/plain; charset=utf-8"),
    ])
  func contentTypes(name: String, contentType: String) {
    #expect(DashboardAssets.contentType(ofFileNamed: name) == contentType)
  }

  @Test("the binary holds Chart.js, as JavaScript")
  func embeddedChart() throws {
    let chart = try #require(DashboardAssets.embedded["chart.min.js"])
    #expect(chart.contentType == "text/javascript; charset=utf-8")
    #expect(
      String(decoding: chart.answer.body.prefix(40), as: UTF8.self).contains("Chart.js v3.9.1"))
  }

  @Test("in the daemon's router, / and /dashboard/{file} are open routes after every API route")
  func inTheDaemon() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    var configuration = Service.Configuration()
    configuration.databasePath = scratch.databasePath
    configuration.readConnections = 1
    let router = try Service(configuration: configuration).server.router

    for (path, pattern) in [("/", "/"), ("/dashboard/chart.min.js", "/dashboard/{file}")] {
      guard
        case .accept(let route, let request) = router.decide(RequestHead(method: "GET", path: path))
      else {
        Issue.record("\(path) is refused without a key")
        continue
      }
      #expect(route.pattern == pattern)
      #expect(route.access == .open)
      #expect(request.app == nil)
      #expect(router.pattern(of: path) == pattern, "a refusal there is labelled by the pattern")
    }
    let patterns = router.routes.map(\.pattern)
    #expect(Array(patterns.suffix(2)) == ["/", "/dashboard/{file}"], "\(patterns)")
  }
}
