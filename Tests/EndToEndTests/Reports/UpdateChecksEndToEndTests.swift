import Foundation
import Testing
import UptakeTestSupport

/// A configuration for the default app: iOS with a prompt, an OS minimum
/// and a required version; Android at end of life.
private func configurationJSON(iosLatest: String = "2.1.0") -> String {
  """
  {"updates": [
    {"updateId": "782000001589015", "platform": "ios", "latestVersion": "\(iosLatest)",
     "storeUrl": "https://apps.apple.com/app/id1234567890", "option": "flexible",
     "requiredVersion": "2.0.0", "reminderDays": 5, "rolloutPercent": 100,
     "minimumOsVersion": "16.0",
     "unsupportedOs": {"alertType": "later", "texts": {"en": {"title": "Old iOS", "description": "Update iOS", "continue": "OK"}}},
     "eol": false, "eolMessage": null,
     "texts": {"en": {"title": "New update is available!", "description": "Faster", "updateNow": "Update Now", "remindMeLater": "Remind Me Later", "ignore": "Ignore"}}},
    {"updateId": "a-eol", "platform": "android", "latestVersion": "9.0",
     "storeUrl": "market://details?id=com.example", "option": "force", "eol": true,
     "eolMessage": "Retired", "texts": {"en": {"title": "T", "description": "D", "updateNow": "U"}}}
  ]}
  """
}

@Suite("update checks with the real daemon and CLI", .timeLimit(.minutes(3)))
struct UpdateChecksEndToEndTests {
  private func put(_ fixture: DaemonFixture, _ text: String, app: String = "default") throws
    -> CommandResult
  {
    let file = fixture.scratch.path("updates-\(UUID().uuidString).json")
    try Data(text.utf8).write(to: URL(fileURLWithPath: file))
    return try uptake(["updates", "put", "--app", app, file, "--db", fixture.databasePath])
  }

  private func check(
    _ fixture: DaemonFixture, _ client: HTTPClient, _ query: String, key: String? = nil,
    headers: [String: String] = [:]
  ) throws -> HTTPResponse {
    var headers = headers
    headers["X-Uptake-Key"] = key ?? fixture.ingestKey
    return try client.send("GET", fixture.daemon.url("/v1/check?" + query), headers: headers)
  }

  @Test("a put is live in the running daemon within a second, and every category answers")
  func liveWithoutRestart() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let query = "platform=ios&appVersion=2.0.5&osVersion=17.1&installId=i1&locale=en-GB"
    #expect(try check(fixture, client, query).text == #"{"hasupdate":0}"#)

    let stored = try put(fixture, configurationJSON())
    #expect(stored.status == 0, "\(stored.standardError)")
    #expect(stored.standardOutput == "app default: configuration version 1 is live (2 entries)\n")
    let putAt = Date()
    var answer = try check(fixture, client, query)
    while !answer.text.hasPrefix(#"{"hasupdate":1"#) && Date().timeIntervalSince(putAt) < 5 {
      Thread.sleep(forTimeInterval: 0.02)
      answer = try check(fixture, client, query)
    }
    #expect(Date().timeIntervalSince(putAt) < 1, "live within a second")
    #expect(
      answer.text
        == #"{"hasupdate":1,"category":1,"updateid":"782000001589015","latestversion":"2.1.0","option":1,"#
        + #""popupinfo":{"title":"New update is available!","description":"Faster","updatenow":"Update Now","remindmelater":"Remind Me Later","ignore":"Ignore"},"#
        + #""updatedetails":{"reminder":5,"storeurl":"https://apps.apple.com/app/id1234567890","toforce":0}}"#
    )
    #expect(answer.header("Cache-Control") == "private, max-age=300")

    let forced = try check(fixture, client, "platform=ios&appVersion=1.2")
    #expect(forced.text.contains(#""option":3"#) && forced.text.contains(#""toforce":1"#))
    #expect(
      try check(fixture, client, "platform=ios&appVersion=2.0.5&osVersion=15.4").text
        == #"{"hasupdate":1,"category":2,"updateid":"782000001589015","title":"Old iOS","description":"Update iOS","continue":"OK","alerttype":1}"#
    )
    #expect(
      try check(fixture, client, "platform=android&appVersion=1.0").text
        == #"{"hasupdate":1,"category":3,"updateid":"a-eol","message":"Retired"}"#)
    #expect(try check(fixture, client, "platform=ios&appVersion=2.1").text == #"{"hasupdate":0}"#)

    // A new version of the file moves the target; the daemon follows.
    #expect(try put(fixture, configurationJSON(iosLatest: "2.2.0")).status == 0)
    let secondPutAt = Date()
    while try !check(fixture, client, "platform=ios&appVersion=2.1").text.contains("2.2.0")
      && Date().timeIntervalSince(secondPutAt) < 5
    {
      Thread.sleep(forTimeInterval: 0.02)
    }
    #expect(Date().timeIntervalSince(secondPutAt) < 1)
  }

  @Test("check and lockout answers are one app's: private, varying by key, on 200 and 304")
  func cachedPrivately() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    #expect(try put(fixture, configurationJSON()).status == 0)
    try fixture.restart()

    let first = try check(fixture, client, "platform=ios&appVersion=2.0.5")
    let etag = try #require(first.header("ETag"))
    let again = try check(
      fixture, client, "platform=ios&appVersion=2.0.5", headers: ["If-None-Match": etag])
    let lockout = try client.send(
      "GET", fixture.daemon.url("/v1/lockout?platform=ios"),
      headers: ["Authorization": "Bearer \(fixture.ingestKey)"])
    let lockoutAgain = try client.send(
      "GET", fixture.daemon.url("/v1/lockout?platform=ios"),
      headers: [
        "Authorization": "Bearer \(fixture.ingestKey)",
        "If-None-Match": lockout.header("ETag") ?? "",
      ])

    #expect([first, again, lockout, lockoutAgain].map(\.status) == [200, 304, 200, 304])
    for answer in [first, again, lockout, lockoutAgain] {
      // A shared cache must not hand one app's answer to another: it is
      // private, and a private cache keys it by the key that chose it.
      #expect(answer.header("Cache-Control") == "private, max-age=300")
      #expect(answer.header("Vary") == "Authorization, X-Uptake-Key")
    }
  }

  @Test("ETag and 304; 400 on bad input; 401 with the read key or no key")
  func protocolEdges() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    #expect(try put(fixture, configurationJSON()).status == 0)
    try fixture.restart()  // a fresh start loads the stored configuration too

    let first = try check(fixture, client, "platform=ios&appVersion=2.0.5")
    #expect(first.status == 200)
    let etag = try #require(first.header("ETag"))
    let again = try check(
      fixture, client, "platform=ios&appVersion=2.0.5", headers: ["If-None-Match": etag])
    #expect(again.status == 304)
    #expect(again.body.isEmpty)
    #expect(again.header("ETag") == etag)

    let lockout = try client.send(
      "GET", fixture.daemon.url("/v1/lockout?platform=ios"),
      headers: ["Authorization": "Bearer \(fixture.ingestKey)"])
    #expect(
      lockout.text
        == #"{"recommendedVersion":"2.1.0","requiredVersion":"2.0.0","updateUrl":"https://apps.apple.com/app/id1234567890","eol":false,"message":null}"#
    )

    for query in [
      "appVersion=1.0", "platform=ios", "platform=web&appVersion=1.0",
      "platform=ios&appVersion=abc",
    ] {
      let bad = try check(fixture, client, query)
      #expect(bad.status == 400, "\(query)")
      #expect(bad.text.hasPrefix(#"{"error":{"code":"bad_request","message":"#))
    }
    #expect(
      try check(fixture, client, "platform=ios&appVersion=1.0", key: fixture.readKey).status == 401)
    let anonymous = try client.send(
      "GET", fixture.daemon.url("/v1/check?platform=ios&appVersion=1.0"))
    #expect(anonymous.status == 401)
    #expect(
      anonymous.text == #"{"error":{"code":"unauthorized","message":"missing or unknown key"}}"#)
  }

  @Test("uptake updates: invalid documents store nothing; get, history and the exit codes")
  func commandLine() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let none = try uptake(["updates", "get", "--app", "default", "--db", fixture.databasePath])
    #expect(none.status == 66)
    #expect(
      none.standardError
        == "uptake updates get: app default has no update configuration (load one with: uptake updates put --app default FILE)\n"
    )

    #expect(try put(fixture, configurationJSON()).status == 0)
    let invalid = try put(
      fixture, configurationJSON().replacingOccurrences(of: #""2.1.0""#, with: #""latest""#))
    #expect(invalid.status == 65)
    #expect(invalid.standardOutput == "")
    #expect(
      invalid.standardError.hasSuffix(
        ": 1 problem, nothing stored\n  updates[0].latestVersion: not a version\n"))

    let got = try uptake(["updates", "get", "--app", "default", "--db", fixture.databasePath])
    #expect(got.status == 0)
    #expect(got.standardOutput == configurationJSON() + "\n", "the live document, as put")
    #expect(got.standardError == "app default: configuration version 1\n")

    #expect(try put(fixture, #"{"updates": []}"#).status == 0)
    let history = try uptake([
      "updates", "history", "--app", "default", "--db", fixture.databasePath,
    ])
    #expect(history.status == 0)
    let lines = history.standardOutput.split(separator: "\n")
    #expect(lines.count == 3)
    #expect(lines.first?.hasPrefix("VERSION  PUT AT") == true)
    #expect(lines[1].hasSuffix("ios=782000001589015@2.1.0 android=a-eol@9.0"))
    #expect(lines[2].hasSuffix("(none)"))
    let old = try uptake(
      ["updates", "get", "--app", "default", "--version", "1", "--db", fixture.databasePath])
    #expect(old.standardOutput == got.standardOutput)

    let fromStdin = try uptake(
      ["updates", "put", "--app", "default", "-", "--db", fixture.databasePath],
      input: Data(configurationJSON().utf8))
    #expect(fromStdin.status == 0)

    #expect(try put(fixture, configurationJSON(), app: "nope").status == 65)
    let missing = try uptake(
      [
        "updates", "put", "--app", "default", fixture.scratch.path("absent.json"), "--db",
        fixture.databasePath,
      ])
    #expect(missing.status == 66)
    let noDatabase = try uptake(
      ["updates", "get", "--app", "default", "--db", fixture.scratch.path("absent.db")])
    #expect(noDatabase.status == 66)
    let usage = try uptake(["updates", "put", "--db", fixture.databasePath])
    #expect(usage.status == 64)
    for command in ["put", "get", "history"] {
      let help = try uptake(["updates", command, "--help"])
      #expect(help.status == 0)
      #expect(help.standardOutput.hasPrefix("usage: uptake updates \(command) --app APPID"))
    }
  }

  @Test("a storeUrl outside https, itms-apps and market is refused (65), and nothing goes live")
  func storeURLSchemes() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let hostile = configurationJSON().replacingOccurrences(
      of: "https://apps.apple.com/app/id1234567890", with: "javascript:alert(document.cookie)")

    let refused = try put(fixture, hostile)
    let live = try uptake(["updates", "get", "--app", "default", "--db", fixture.databasePath])
    let check = try check(fixture, HTTPClient(), "platform=ios&appVersion=1.0.0&installId=i1")

    #expect(refused.status == 65)
    #expect(
      refused.standardError.hasSuffix(
        ": 1 problem, nothing stored\n"
          + #"  updates[0].storeUrl: scheme "javascript" is not allowed (use https, itms-apps or market)"#
          + "\n"), "\(refused.standardError)")
    #expect(live.status == 66, "no configuration stored")
    #expect(check.text == #"{"hasupdate":0}"#)
  }

  @Test("reports show the configured platform, target version, option and rollout")
  func reportsKnowTheConfiguration() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    #expect(try put(fixture, configurationJSON()).status == 0)
    let events = [
      eventJSON(id: "1", updateId: "782000001589015", installId: "i1"),
      eventJSON(id: "2", updateId: "other", installId: "i1"),
    ]
    let posted = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON(events))
    try #require(posted.status == 200)

    let updates = try client.get(fixture.daemon.url("/v1/updates"), key: fixture.readKey)
    #expect(
      updates.text.contains(
        #""ignore":0,"platform":"ios","targetVersion":"2.1.0","option":"flexible","rolloutPercent":100}"#
      ))
    #expect(
      updates.text.contains(
        #""ignore":0,"platform":null,"targetVersion":null,"option":null,"rolloutPercent":null}"#))
    let one = try client.get(
      fixture.daemon.url("/v1/updates/782000001589015"), key: fixture.readKey)
    #expect(
      one.text.hasSuffix(
        #","platform":"ios","targetVersion":"2.1.0","option":"flexible","rolloutPercent":100}"#))
    let csv = try client.get(fixture.daemon.url("/v1/updates?format=csv"), key: fixture.readKey)
    #expect(
      csv.text.hasPrefix(
        "updateId,firstSeen,lastSeen,impression,download,later,ignore,platform,targetVersion,option,"
          + "rolloutPercent\r\n"
      ))
    #expect(csv.text.contains(",1,0,0,0,ios,2.1.0,flexible,100\r\n"))

    let report = try uptake(["report", "--app", "default", "--db", fixture.databasePath])
    let lines = report.standardOutput.split(separator: "\n").map(String.init)
    #expect(lines.contains { $0.hasPrefix("UPDATE") && $0.hasSuffix("PLATFORM  TARGET  OPTION") })
    #expect(
      lines.contains {
        $0.hasPrefix("782000001589015") && $0.hasSuffix("ios       2.1.0   flexible")
      })
    #expect(lines.contains { $0.hasPrefix("other") && $0.hasSuffix("—         —       —") })
    let detail = try uptake(
      ["report", "--app", "default", "--update", "782000001589015", "--db", fixture.databasePath])
    #expect(
      detail.standardOutput.contains("configured for ios: target version 2.1.0, option flexible\n"))
  }

  @Test("the funnel counts an upgrade only at the configured latestVersion")
  func funnelReachesTheTargetVersion() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let days = Days()
    let update = "782000001589015"
    // Shown on 2.0.0, downloads, seen on 2.0.5 an hour later and on 2.1.0
    // three hours later.
    let events = [
      eventJSON(
        id: "1", updateId: update, appVersion: "2.0.0", installId: "i1",
        timestamp: days.time(-1, "08:00:00")),
      eventJSON(
        id: "2", updateId: update, action: "download", appVersion: "2.0.0", installId: "i1",
        timestamp: days.time(-1, "08:01:00")),
      eventJSON(
        id: "3", updateId: "other", appVersion: "2.0.5", installId: "i1",
        timestamp: days.time(-1, "09:00:00")),
      eventJSON(
        id: "4", updateId: "other", appVersion: "2.1.0", installId: "i1",
        timestamp: days.time(-1, "11:00:00")),
    ]
    let posted = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON(events))
    try #require(posted.status == 200)
    let funnelPath = "/v1/updates/\(update)/funnel"

    let unconfigured = try client.get(fixture.daemon.url(funnelPath), key: fixture.readKey)
    #expect(
      unconfigured.text
        == #"{"impressions":1,"downloads":1,"upgraded":1,"medianHoursToUpgrade":1}"#)
    #expect(try put(fixture, configurationJSON(iosLatest: "2.1.0")).status == 0)
    let configured = try client.get(fixture.daemon.url(funnelPath), key: fixture.readKey)
    #expect(
      configured.text == #"{"impressions":1,"downloads":1,"upgraded":1,"medianHoursToUpgrade":3}"#)
    #expect(try put(fixture, configurationJSON(iosLatest: "2.2.0")).status == 0)
    let beyond = try client.get(fixture.daemon.url(funnelPath), key: fixture.readKey)
    #expect(
      beyond.text
        == #"{"impressions":1,"downloads":1,"upgraded":0,"medianHoursToUpgrade":null}"#)
  }
}
