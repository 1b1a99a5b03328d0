import Foundation
import Testing
import UptakeTestSupport

/// The dashboard as a browser gets it from the real daemon: the page and
/// every file it loads from the binary, byte for byte the files they were
/// built from, with the headers that keep the page to its own origin; and
/// the two answers the page needs beyond the reports.
@Suite("uptaked serves the dashboard from its binary", .timeLimit(.minutes(3)))
struct DashboardEndToEndTests {
  /// The security headers, and the caching every file gets.
  static let securityHeaders = DashboardHeaders.security.merging(["Cache-Control": "no-cache"]) {
    $1
  }
  static let chartJS = "/usr/share/javascript/chart.js/chart.min.js"

  /// The files of dashboard/ the build embeds: every regular file directly
  /// in it but the hidden ones.
  static func dashboardFiles() throws -> [URL] {
    let directory = packageFile("dashboard")
    guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
    return try FileManager.default.contentsOfDirectory(
      at: directory, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]
    ).filter { try $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true }
  }

  @Test("GET / is the page, without a key, with every security header")
  func page() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let page = try HTTPClient().get(fixture.daemon.url("/"))
    let index = packageFile("dashboard/index.html")
    guard FileManager.default.fileExists(atPath: index.path) else {
      #expect(page.status == 404, "no dashboard/index.html, no page")
      return
    }

    #expect(page.status == 200)
    #expect(page.header("Content-Type") == "text/html; charset=utf-8")
    #expect(page.body == (try Data(contentsOf: index)))
    for (name, value) in Self.securityHeaders {
      #expect(page.header(name) == value, "\(name)")
    }
    #expect(page.header("ETag")?.hasPrefix("\"") == true, "a strong tag")
  }

  @Test("/dashboard/chart.min.js is Debian's Chart.js, and every file of dashboard/ is itself")
  func files() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let chart = try client.get(fixture.daemon.url("/dashboard/chart.min.js"))
    #expect(chart.status == 200)
    #expect(chart.header("Content-Type") == "text/javascript; charset=utf-8")
    #expect(chart.body == (try Data(contentsOf: URL(fileURLWithPath: Self.chartJS))))

    let types = [
      "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
      "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml", "json": "application/json",
    ]
    for file in try Self.dashboardFiles() {
      let name = file.lastPathComponent
      let served = try client.get(fixture.daemon.url("/dashboard/\(name)"))
      #expect(served.status == 200, "\(name)")
      #expect(served.body == (try Data(contentsOf: file)), "\(name) as on disk")
      #expect(
        served.header("Content-Type")
          == types[file.pathExtension, default: "text/plain; charset=utf-8"],
        "\(name)")
      for (header, value) in Self.securityHeaders {
        #expect(served.header(header) == value, "\(name): \(header)")
      }
    }
  }

  @Test("an unknown file is 404 not_found; If-None-Match with the ETag is 304 without a body")
  func unknownAndNotModified() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let unknown = try client.get(fixture.daemon.url("/dashboard/no-such-file.js"))
    #expect(unknown.status == 404)
    #expect(unknown.text == #"{"error":{"code":"not_found","message":"no such path"}}"#)

    let url = fixture.daemon.url("/dashboard/chart.min.js")
    let etag = try #require(try client.get(url).header("ETag"))
    let again = try client.get(url, headers: ["If-None-Match": etag])
    #expect(again.status == 304)
    #expect(again.body.isEmpty)
    #expect(again.header("ETag") == etag)
    #expect(try client.get(url, headers: ["If-None-Match": "\"stale\""]).status == 200)
  }

  @Test("GET /v1/app names the read key's app; without a read key it is 401")
  func app() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let url = fixture.daemon.url("/v1/app")

    let named = try client.get(url, key: fixture.readKey)
    #expect(named.status == 200)
    #expect(named.text == #"{"appId":"default"}"#)
    #expect(try client.get(url).status == 401)
    #expect(try client.get(url, key: fixture.ingestKey).status == 401)
  }

  @Test("rolloutPercent of the entry naming an update is in /v1/updates, JSON and CSV")
  func rolloutPercent() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let configuration = """
      {"updates": [{"updateId": "u1", "platform": "ios", "latestVersion": "2.0",
        "storeUrl": "https://apps.apple.com/app/id1234567890", "option": "flexible",
        "rolloutPercent": 12.5, "texts": {"en": {"title": "T", "description": "D",
        "updateNow": "U", "remindMeLater": "L", "ignore": "I"}}}]}
      """
    let put = try uptake(
      ["updates", "put", "--app", "default", "-", "--db", fixture.databasePath],
      input: Data(configuration.utf8))
    try #require(put.status == 0, "\(put.standardError)")
    try fixture.post([
      eventJSON(id: "1", updateId: "u1", installId: "i1"),
      eventJSON(id: "2", updateId: "u2", installId: "i1"),
    ])

    let json = try fixture.report("/v1/updates").text
    let csv = try fixture.report("/v1/updates?format=csv").text
    let one = try fixture.report("/v1/updates/u1").text

    #expect(json.contains(#""option":"flexible","rolloutPercent":12.5}"#), "\(json)")
    #expect(json.contains(#""option":null,"rolloutPercent":null}"#), "\(json)")
    #expect(
      csv.hasPrefix(
        "updateId,firstSeen,lastSeen,impression,download,later,ignore,"
          + "platform,targetVersion,option,rolloutPercent\r\n"), "\(csv)")
    #expect(csv.contains(",1,0,0,0,ios,2.0,flexible,12.5\r\n"), "\(csv)")
    #expect(csv.contains(",1,0,0,0,,,,\r\n"), "\(csv)")
    #expect(one.hasSuffix(#""option":"flexible","rolloutPercent":12.5}"#), "\(one)")
  }
}
