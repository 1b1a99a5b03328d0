import Testing
import UptakeCore
import UptakeStore

@testable import UptakeHTTP

/// The app's configuration in these tests: iOS with every feature, Android
/// at end of life.
private let configurationText = """
  {"updates": [
    {"updateId": "782000001589015", "platform": "ios", "latestVersion": "2.1.0",
     "storeUrl": "https://apps.apple.com/app/id1234567890", "option": "flexible",
     "requiredVersion": "2.0.0", "reminderDays": 5, "rolloutPercent": 100,
     "minimumOsVersion": "16.0",
     "unsupportedOs": {"alertType": "freeze", "texts": {
       "en": {"title": "iOS too old", "description": "Update iOS", "continue": "OK"},
       "fr": {"title": "iOS trop ancien", "description": "Mettez iOS à jour", "continue": "OK"}}},
     "texts": {
       "de": {"title": "Neu", "description": "Schneller", "updateNow": "Jetzt", "remindMeLater": "Später", "ignore": "Nein"},
       "en": {"title": "New update is available!", "description": "Faster \\"and\\" safer", "updateNow": "Update Now", "remindMeLater": "Remind Me Later", "ignore": "Ignore"}}},
    {"updateId": "android-eol", "platform": "android", "latestVersion": "5.0",
     "storeUrl": "market://details?id=com.example", "option": "immediate", "eol": true,
     "eolMessage": "This app is retired.",
     "texts": {"en": {"title": "T", "description": "D", "updateNow": "U", "remindMeLater": "L"}}},
    {"updateId": "mac-half", "platform": "macos", "latestVersion": "3.0", "requiredVersion": "1.0",
     "storeUrl": "https://example.com/mac", "option": "immediate", "rolloutPercent": 50,
     "texts": {"fr": {"title": "T", "description": "D", "updateNow": "U", "remindMeLater": "L"}}}
  ]}
  """

private struct CheckFixture {
  let router: Router
  let ingestKey: String
  let readKey: String

  static func with(_ body: (CheckFixture) throws -> Void) throws {
    let shop = try ShopDatabase()
    defer { shop.remove() }
    let configuration = try UpdateConfigurationDecoder.decode(Array(configurationText.utf8)).get()
    try UpdateConfigStore.put(configuration, appNo: shop.appNo, in: shop.database, nowMs: 0)
    let configurations = try UpdateConfigDirectory(
      database: try Database(path: shop.databasePath), compile: CheckAnswers.compile)
    // Never started: the configuration has no appStore entry to look up.
    let store = try AppStoreWatcher(options: StoreWatchOptions(), logger: Logger()) { [:] }
    let router = Router(
      routes: CheckHandlers(configurations: configurations, store: store).routes,
      keys: try shop.keyDirectory())
    try body(
      CheckFixture(router: router, ingestKey: shop.keys.ingestKey, readKey: shop.keys.readKey))
  }

  func get(
    _ path: String, _ query: [String: String], key: String? = nil, headers: [String: String] = [:]
  ) -> Response {
    var headers = headers
    headers["X-Uptake-Key"] = key ?? ingestKey
    let head = RequestHead(method: "GET", path: path, query: query, headers: headers)
    return router.handle(Request(head: head)).immediateResponse ?? Response(status: 0)
  }

  func check(_ query: [String: String]) -> Response { get("/v1/check", query) }
}

@Suite("GET /v1/check and /v1/lockout through the router")
struct CheckEndpointsTests {
  @Test("an update: category 1 with the contract's keys, in the request's language")
  func prompt() throws {
    try CheckFixture.with { fixture in
      let response = fixture.check([
        "platform": "ios", "appVersion": "2.0.5", "osVersion": "17.2", "installId": "i1",
        "locale": "de_AT",
      ])
      #expect(response.status == 200)
      #expect(response.header("Content-Type") == "application/json")
      #expect(response.header("Cache-Control") == "private, max-age=300")
      #expect(response.header("Vary") == "Authorization, X-Uptake-Key")
      #expect(
        response.bodyText
          == #"{"hasupdate":1,"category":1,"updateid":"782000001589015","latestversion":"2.1.0","option":1,"#
          + #""popupinfo":{"title":"Neu","description":"Schneller","updatenow":"Jetzt","remindmelater":"Später","ignore":"Nein"},"#
          + #""updatedetails":{"reminder":5,"storeurl":"https://apps.apple.com/app/id1234567890","toforce":0}}"#
      )
    }
  }

  @Test("below requiredVersion: option 3 and toforce 1; unknown language falls back to en")
  func forced() throws {
    try CheckFixture.with { fixture in
      let response = fixture.check(["platform": "ios", "appVersion": "1.9", "locale": "ja-JP"])
      #expect(
        response.bodyText
          == #"{"hasupdate":1,"category":1,"updateid":"782000001589015","latestversion":"2.1.0","option":3,"#
          + #""popupinfo":{"title":"New update is available!","description":"Faster \"and\" safer","updatenow":"Update Now","remindmelater":"Remind Me Later","ignore":"Ignore"},"#
          + #""updatedetails":{"reminder":5,"storeurl":"https://apps.apple.com/app/id1234567890","toforce":1}}"#
      )
    }
  }

  @Test("at or above latestVersion, or a platform without an entry: no update")
  func noUpdate() throws {
    try CheckFixture.with { fixture in
      for query in [
        ["platform": "ios", "appVersion": "2.1"], ["platform": "ios", "appVersion": "2.10.0"],
        ["platform": "tvos", "appVersion": "1.0"],
      ] {
        let response = fixture.check(query)
        #expect(response.status == 200)
        #expect(response.bodyText == #"{"hasupdate":0}"#)
      }
    }
  }

  @Test("an OS older than minimumOsVersion: category 2 with its alert type")
  func unsupportedOS() throws {
    try CheckFixture.with { fixture in
      let response = fixture.check([
        "platform": "ios", "appVersion": "2.0.5", "osVersion": "15.7", "locale": "fr-CA",
      ])
      #expect(
        response.bodyText
          == #"{"hasupdate":1,"category":2,"updateid":"782000001589015","title":"iOS trop ancien","description":"Mettez iOS à jour","continue":"OK","alerttype":2}"#
      )
    }
  }

  @Test("end of life: category 3 with the message, whatever the version")
  func endOfLife() throws {
    try CheckFixture.with { fixture in
      for version in ["1.0", "5.0", "6.1"] {
        #expect(
          fixture.check(["platform": "android", "appVersion": version]).bodyText
            == #"{"hasupdate":1,"category":3,"updateid":"android-eol","message":"This app is retired."}"#
        )
      }
    }
  }

  @Test("a partial rollout: the same install always gets the same answer; no installId gets none")
  func rollout() throws {
    try CheckFixture.with { fixture in
      var reached = 0
      for index in 0..<400 {
        let query = ["platform": "macos", "appVersion": "2.0", "installId": "install-\(index)"]
        let first = fixture.check(query).bodyText
        #expect(fixture.check(query).bodyText == first)
        if first.hasPrefix(#"{"hasupdate":1"#) { reached += 1 }
      }
      #expect((140...260).contains(reached), "about half of 400: \(reached)")
      #expect(
        fixture.check(["platform": "macos", "appVersion": "2.0"]).bodyText == #"{"hasupdate":0}"#)
      // Forced below requiredVersion, in the only language there is.
      #expect(
        fixture.check(["platform": "macos", "appVersion": "0.9", "locale": "en"]).bodyText
          == #"{"hasupdate":1,"category":1,"updateid":"mac-half","latestversion":"3.0","option":3,"#
          + #""popupinfo":{"title":"T","description":"D","updatenow":"U","remindmelater":"L","ignore":""},"#
          + #""updatedetails":{"reminder":1,"storeurl":"https://example.com/mac","toforce":1}}"#)
    }
  }

  @Test("ETag: a matching If-None-Match is 304 without a body; another answer has another tag")
  func conditional() throws {
    try CheckFixture.with { fixture in
      let query = ["platform": "ios", "appVersion": "2.0.5"]
      let first = fixture.check(query)
      let etag = try #require(first.header("ETag"))
      #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 18)
      for header in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
        let again = fixture.get("/v1/check", query, headers: ["If-None-Match": header])
        #expect(again.status == 304, "\(header)")
        #expect(again.body.isEmpty)
        #expect(again.header("ETag") == etag)
        #expect(again.header("Cache-Control") == "private, max-age=300")
        #expect(again.header("Vary") == "Authorization, X-Uptake-Key")
      }
      let stale = fixture.get("/v1/check", query, headers: ["If-None-Match": "\"0000\""])
      #expect(stale.status == 200)
      #expect(stale.bodyText == first.bodyText)
      let forced = fixture.check(["platform": "ios", "appVersion": "1.0"])
      #expect(forced.header("ETag") != etag)
      let lockout = fixture.get("/v1/lockout", ["platform": "ios"])
      let lockoutTag = try #require(lockout.header("ETag"))
      #expect(
        fixture.get("/v1/lockout", ["platform": "ios"], headers: ["If-None-Match": lockoutTag])
          .status == 304)
    }
  }

  @Test(
    "bad input is 400 with the contract's error body",
    arguments: [
      ([:], "platform: required"),
      (["appVersion": "1.0"], "platform: required"),
      (["platform": "ios"], "appVersion: required"),
      (["platform": "ios", "appVersion": ""], "appVersion: required"),
      (
        ["platform": "windows", "appVersion": "1.0"],
        "platform: use one of ios, ipados, macos, tvos, watchos, visionos, android, other"
      ),
      (["platform": "ios", "appVersion": "latest"], "appVersion: not a version"),
      (
        ["platform": "ios", "appVersion": String(repeating: "1", count: 33)],
        "appVersion: not a version"
      ),
      (
        ["platform": "ios", "appVersion": "1.0", "osVersion": "iOS 17"], "osVersion: not a version"
      ),
      (
        ["platform": "ios", "appVersion": "1.0", "installId": String(repeating: "i", count: 65)],
        "installId: must be 1 to 64 characters"
      ),
    ] as [([String: String], String)])
  func badRequests(query: [String: String], message: String) throws {
    try CheckFixture.with { fixture in
      let response = fixture.check(query)
      #expect(response.status == 400)
      #expect(
        response.bodyText == #"{"error":{"code":"bad_request","message":"\#(message)"}}"#)
    }
  }

  @Test("only the ingest key: the read key and no key are 401")
  func authentication() throws {
    try CheckFixture.with { fixture in
      let query = ["platform": "ios", "appVersion": "1.0"]
      #expect(fixture.get("/v1/check", query, key: fixture.readKey).status == 401)
      #expect(fixture.get("/v1/lockout", ["platform": "ios"], key: fixture.readKey).status == 401)
      let head = RequestHead(method: "GET", path: "/v1/check", query: query)
      #expect(fixture.router.handle(Request(head: head)).immediateResponse?.status == 401)
    }
  }

  @Test("lockout: the platform's versions, URL and end of life; nulls without an entry")
  func lockout() throws {
    try CheckFixture.with { fixture in
      let ios = fixture.get("/v1/lockout", ["platform": "ios"])
      #expect(ios.status == 200)
      #expect(ios.header("Cache-Control") == "private, max-age=300")
      #expect(ios.header("Vary") == "Authorization, X-Uptake-Key")
      #expect(
        ios.bodyText
          == #"{"recommendedVersion":"2.1.0","requiredVersion":"2.0.0","updateUrl":"https://apps.apple.com/app/id1234567890","eol":false,"message":null}"#
      )
      #expect(
        fixture.get("/v1/lockout", ["platform": "android"]).bodyText
          == #"{"recommendedVersion":"5.0","requiredVersion":null,"updateUrl":"market://details?id=com.example","eol":true,"message":"This app is retired."}"#
      )
      #expect(
        fixture.get("/v1/lockout", ["platform": "tvos"]).bodyText
          == #"{"recommendedVersion":null,"requiredVersion":null,"updateUrl":null,"eol":false,"message":null}"#
      )
      let bad = fixture.get("/v1/lockout", [:])
      #expect(bad.status == 400)
    }
  }
}
