import Foundation
import Testing
import UptakeTestSupport

/// The App Store gate end to end (issue 24): the real daemon looks a fake
/// lookup server up (tools/fake-app-store, scripted per country), its
/// watch's clock moved by a file so a day of grace passes in a moment, and
/// every rule is checked through `/v1/check`, `/v1/store` and `/metrics`.
@Suite("uptaked: checks that know the App Store", .timeLimit(.minutes(3)))
struct AppStoreGateEndToEndTests {
  /// 2026-12-01T00:00:00Z.
  private static let start: Int64 = 1_796_083_200_000
  private static let hour: Int64 = 3_600_000

  @Test("a scripted timeline in three countries: grace, forcing, not sold, failures")
  func scriptedTimeline() throws {
    let store = try FakeAppStore()
    defer { store.stop() }
    let world = try GatedDaemon(store: store, lookupsPerMinute: 1200)
    defer { world.stop() }
    let client = HTTPClient(timeout: 30)

    // Day 0, 00:00: the US store serves 1.9.5, Germany 2.1.0, France throttles.
    world.setClock(Self.start)
    try store.serve([
      "us": .serves("1.9.5", minimumOs: "15.0"), "de": .serves("2.1.0", minimumOs: "17.0"),
      "fr": .status(403),
    ])
    try world.putConfiguration()
    try world.waitForStore(client, "lookups in every country") {
      $0.outcome("us") == "ok" && $0.outcome("de") == "ok" && $0.outcome("fr") == "throttled"
    }
    #expect(try world.check(client, "country=us&appVersion=1.9").hasUpdate == 0, "within grace")
    #expect(try world.check(client, "country=de&appVersion=2.0.5").hasUpdate == 0)

    // 01:00: the US store now serves 2.0.0, the required version.
    world.setClock(Self.start + Self.hour)
    try store.serve([
      "us": .serves("2.0.0", minimumOs: "15.0"), "de": .serves("2.1.0", minimumOs: "17.0"),
      "fr": .status(403),
    ])
    try world.waitForStore(client, "2.0.0 seen in the US") { $0.versions("us").contains("2.0.0") }

    // Day 1, 00:00: 1.9.5 is live in the US, 2.0.0 not yet; 2.1.0 in Germany.
    world.setClock(Self.start + 24 * Self.hour)
    let held = try world.check(client, "country=us&appVersion=1.9")
    #expect(
      held.hasUpdate == 1 && held.latestVersion == "1.9.5" && held.toForce == 0,
      "below required, but 2.0.0 is not live: the flexible prompt to what the store serves")
    let germany = try world.check(client, "country=de&appVersion=2.0.5")
    #expect(germany.latestVersion == "2.1.0" && germany.toForce == 0)
    #expect(try world.check(client, "country=de&appVersion=1.9").toForce == 1)
    #expect(try world.check(client, "locale=de-DE&appVersion=2.0.5").latestVersion == "2.1.0")
    #expect(
      try world.check(client, "locale=de-AT&appVersion=2.0.5").hasUpdate == 0,
      "Austria is not watched: nothing known, no prompt")
    #expect(try world.check(client, "country=fr&appVersion=1.9").hasUpdate == 0, "never answered")
    #expect(
      try world.check(client, "appVersion=1.9.5").hasUpdate == 0,
      "no country: the first watched, the US, where 1.9.5 is all that is live")
    let oldOS = try world.check(client, "country=de&appVersion=2.0.5&osVersion=15.5")
    #expect(oldOS.category == 2, "below the configured minimum OS, 16.0")
    let storeOS = try world.check(client, "country=de&appVersion=2.0.5&osVersion=16.5")
    #expect(storeOS.category == 2, "below the German store's minimum OS for 2.1.0, 17.0")
    #expect(try world.check(client, "country=de&appVersion=2.0.5&osVersion=17.1").category == 1)

    // Day 1, 01:00: 2.0.0 is live in the US: installs below it are forced.
    world.setClock(Self.start + 25 * Self.hour)
    let forced = try world.check(client, "country=us&appVersion=1.9")
    #expect(forced.latestVersion == "2.0.0" && forced.toForce == 1)
    #expect(try world.check(client, "country=us&appVersion=2.0.0").hasUpdate == 0)

    // The US store stops selling the app; Germany answers garbage, then slowly.
    try store.serve([
      "us": .notSold, "de": .body("<html>Service Unavailable</html>"), "fr": .status(403),
    ])
    try world.waitForStore(client, "not sold and garbage") {
      $0.status("us") == "not_sold" && $0.outcome("de") == "garbage"
    }
    #expect(try world.check(client, "country=us&appVersion=1.9").hasUpdate == 0, "not sold")
    #expect(
      try world.check(client, "country=de&appVersion=2.0.5").latestVersion == "2.1.0",
      "a garbage answer keeps what was known")
    try store.serve([
      "us": .notSold, "de": .serves("2.1.0", minimumOs: "17.0", delaySeconds: 3),
      "fr": .status(403),
    ])
    try world.waitForStore(client, "a slow answer") { $0.outcome("de") == "unreachable" }
    #expect(try world.check(client, "country=de&appVersion=2.0.5").latestVersion == "2.1.0")

    // The operator's view, from what the daemon kept in the database.
    let status = try uptake([
      "updates", "status", "--app", "default", "--db", world.fixture.databasePath,
    ])
    #expect(status.status == 0, "\(status.standardError)")
    let lines = status.standardOutput.split(separator: "\n")
    #expect(lines.contains { $0.contains("us") && $0.contains("not sold") }, "\(lines)")
    #expect(
      lines.contains {
        $0.contains(" de ") && $0.contains("2.1.0 (2026-12-01T00:00:00Z -> 2026-12-02T00:00:00Z)")
      }, "\(lines)")
    #expect(lines.contains { $0.contains(" fr ") && $0.contains("throttled") }, "\(lines)")

    // The update report and the funnel say how long each store lagged
    // behind the configuration: 2.1.0, put at the test's start (real time),
    // first seen in Germany at day 0 of the watch's clock.
    for path in ["/v1/updates/782000001589015", "/v1/updates/782000001589015/funnel"] {
      let report = try client.get(world.fixture.daemon.url(path), key: world.fixture.readKey)
      let root = try JSONSerialization.jsonObject(with: report.body) as? [String: Any]
      let lags = (root?["storeLag"] as? [[String: Any]] ?? []).reduce(
        into: [String: [String: Any]]()
      ) { $0[$1["country"] as? String ?? ""] = $1 }
      #expect(lags.keys.sorted() == ["de", "fr", "us"], "\(path): \(report.text)")
      #expect(lags["de"]?["liveSince"] as? String == "2026-12-02T00:00:00Z", "\(path)")
      #expect(lags["de"]?["lagHours"] as? Double == 0, "live before the put: no lag")
      #expect(lags["fr"]?["lagHours"] is NSNull && lags["fr"]?["firstSeen"] is NSNull)
      #expect(lags["us"]?["firstSeen"] is NSNull, "2.1.0 never seen in the US")
    }

    let metrics = try client.get(world.fixture.daemon.url("/metrics")).text
    for outcome in ["ok", "not_sold", "throttled", "garbage", "unreachable"] {
      #expect(
        Self.counter(metrics, "uptake_app_store_lookups_total{outcome=\"\(outcome)\"}") > 0,
        "\(outcome)")
    }
    for reason in ["not_live_yet", "not_sold", "force_held"] {
      #expect(
        Self.counter(metrics, "uptake_checks_held_by_store_total{reason=\"\(reason)\"}") > 0,
        "\(reason)")
    }

    // A restart keeps when each version was first seen: no new grace.
    try store.serve(["de": .status(500)])
    try world.fixture.restart()
    #expect(
      try world.check(client, "country=de&appVersion=2.0.5").latestVersion == "2.1.0",
      "live again at once after a restart")
    try world.waitForStore(client, "the kept versions") {
      $0.versions("us") == ["2.0.0", "1.9.5"] && $0.status("us") == "not_sold"
    }
  }

  @Test("the lookups keep to the budget: 20 a minute by default, whatever is due")
  func lookupBudget() throws {
    let store = try FakeAppStore()
    defer { store.stop() }
    try store.serve(["us": .serves("2.1.0"), "de": .serves("2.1.0"), "fr": .serves("2.1.0")])
    let world = try GatedDaemon(store: store, lookupsPerMinute: nil)
    defer { world.stop() }
    world.setClock(Self.start)
    try world.putConfiguration()
    let client = HTTPClient(timeout: 30)
    try world.waitForStore(client, "a first lookup") { $0.outcome("us") != nil }
    let first = try #require(store.requestTimes().first)
    Thread.sleep(forTimeInterval: 7)
    let times = store.requestTimes()
    let within = times.filter { $0 < first + 7 }
    // One every 3 s at most: the first and then two more in 7 s.
    #expect(within.count <= 3, "\(times.map { $0 - first })")
    #expect(within.count >= 2, "lookups go on at the budget's pace: \(times.map { $0 - first })")
    #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 2.9 }, "spaced 3 s apart")
  }

  @Test("a country that is not an ISO 3166-1 code is a 400")
  func badCountry() throws {
    let store = try FakeAppStore()
    defer { store.stop() }
    let world = try GatedDaemon(store: store, lookupsPerMinute: 1200)
    defer { world.stop() }
    let answer = try HTTPClient().get(
      world.fixture.daemon.url("/v1/check?platform=ios&appVersion=1.0&country=uk"),
      headers: ["X-Uptake-Key": world.fixture.ingestKey])
    #expect(answer.status == 400 && answer.text.contains("country"), "\(answer.text)")
  }

  private static func counter(_ metrics: String, _ series: String) -> Double {
    metrics.split(separator: "\n").first { $0.hasPrefix(series + " ") }
      .flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
  }
}

/// The daemon of these tests: its watch pointed at the fake store, its
/// clock in a file, an iOS entry watched in the US, Germany and France.
private struct GatedDaemon {
  let fixture: DaemonFixture
  let clockFile: String

  init(store: FakeAppStore, lookupsPerMinute: Int?) throws {
    let clock = NSTemporaryDirectory() + "uptake-clock-\(UUID().uuidString)"
    clockFile = clock
    var arguments = [
      "--app-store-lookup-url", "http://127.0.0.1:\(store.port)", "--app-store-refresh", "2",
      "--app-store-timeout", "1",
    ]
    if let lookupsPerMinute {
      arguments += ["--app-store-lookups-per-minute", String(lookupsPerMinute)]
    }
    fixture = try DaemonFixture(
      arguments: arguments, environment: ["UPTAKE_TEST_CLOCK_FILE": clock])
  }

  func stop() {
    fixture.tearDown()
    try? FileManager.default.removeItem(atPath: clockFile)
  }

  func setClock(_ ms: Int64) {
    FileManager.default.createFile(atPath: clockFile, contents: Data(String(ms).utf8))
  }

  func putConfiguration() throws {
    let text = """
      {"updates": [
        {"updateId": "782000001589015", "platform": "ios", "latestVersion": "2.1.0",
         "storeUrl": "https://apps.apple.com/app/id1234567890", "option": "flexible",
         "requiredVersion": "2.0.0", "minimumOsVersion": "16.0",
         "appStore": {"id": "1234567890", "countries": ["us", "de", "fr"], "graceHours": 24},
         "texts": {"en": {"title": "New", "description": "Faster", "updateNow": "Update",
                          "remindMeLater": "Later", "ignore": "Ignore"}}}
      ]}
      """
    let file = fixture.scratch.path("updates.json")
    try Data(text.utf8).write(to: URL(fileURLWithPath: file))
    let put = try uptake(["updates", "put", "--app", "default", file, "--db", fixture.databasePath])
    try #require(put.status == 0, "\(put.standardError)")
  }

  /// One check's answer, as the client reads it.
  struct Check {
    let json: [String: Any]
    var hasUpdate: Int { json["hasupdate"] as? Int ?? -1 }
    var category: Int { json["category"] as? Int ?? 0 }
    var latestVersion: String? { json["latestversion"] as? String }
    var toForce: Int? { (json["updatedetails"] as? [String: Any])?["toforce"] as? Int }
  }

  func check(_ client: HTTPClient, _ query: String) throws -> Check {
    let answer = try client.get(
      fixture.daemon.url("/v1/check?platform=ios&" + query),
      headers: ["X-Uptake-Key": fixture.ingestKey])
    try #require(answer.status == 200, "\(query): \(answer.status) \(answer.text)")
    return Check(json: try JSONSerialization.jsonObject(with: answer.body) as? [String: Any] ?? [:])
  }

  /// `/v1/store`'s countries of the iOS entry.
  struct StoreView {
    let countries: [String: [String: Any]]
    func outcome(_ country: String) -> String? {
      (countries[country]?["lastLookup"] as? [String: Any])?["outcome"] as? String
    }
    func status(_ country: String) -> String? { countries[country]?["status"] as? String }
    func versions(_ country: String) -> [String] {
      (countries[country]?["versions"] as? [[String: Any]] ?? []).compactMap {
        $0["version"] as? String
      }
    }
  }

  /// Polls `/v1/store` until `done` holds, at most 20 s.
  func waitForStore(_ client: HTTPClient, _ what: String, _ done: (StoreView) -> Bool) throws {
    var last = ""
    for _ in 0..<200 {
      let answer = try client.get(fixture.daemon.url("/v1/store"), key: fixture.readKey)
      last = answer.text
      let root = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
      let platforms = root?["platforms"] as? [[String: Any]] ?? []
      let countries = (platforms.first?["countries"] as? [[String: Any]] ?? []).reduce(
        into: [String: [String: Any]]()
      ) { $0[$1["country"] as? String ?? ""] = $1 }
      if done(StoreView(countries: countries)) { return }
      Thread.sleep(forTimeInterval: 0.1)
    }
    Issue.record("/v1/store never showed \(what): \(last)")
    throw CancellationError()
  }
}

/// tools/fake-app-store, scripted by a file this rewrites.
private final class FakeAppStore {
  enum Answer {
    case serves(String, minimumOs: String? = nil, delaySeconds: Double = 0)
    case notSold
    case status(Int)
    case body(String)

    var script: [String: Any] {
      switch self {
      case .serves(let version, let minimumOs, let delay):
        var result: [String: Any] = ["trackId": 1_234_567_890, "version": version]
        if let minimumOs { result["minimumOsVersion"] = minimumOs }
        let body = try! JSONSerialization.data(
          withJSONObject: ["resultCount": 1, "results": [result]])
        return ["body": String(decoding: body, as: UTF8.self), "delaySeconds": delay]
      case .notSold: return ["body": #"{"resultCount":0,"results":[]}"#]
      case .status(let status): return ["status": status, "body": "Forbidden"]
      case .body(let text): return ["body": text]
      }
    }
  }

  let port: Int
  private let process = Process()
  private let directory: String

  init() throws {
    directory = NSTemporaryDirectory() + "uptake-fake-store-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    FileManager.default.createFile(atPath: directory + "/log", contents: nil)
    try Self.write([:], to: directory)
    process.executableURL = packageFile("tools/fake-app-store")
    process.arguments = [directory + "/script.json", directory + "/log"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
    port = try #require(
      Int(line.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").last ?? ""),
      "the fake store's banner: \(line)")
  }

  /// From now on each country answers so; one missing is not sold.
  func serve(_ answers: [String: Answer]) throws {
    try Self.write(answers, to: directory)
  }

  private static func write(_ answers: [String: Answer], to directory: String) throws {
    let script = try JSONSerialization.data(withJSONObject: answers.mapValues(\.script))
    try script.write(to: URL(fileURLWithPath: directory + "/script.json"), options: .atomic)
  }

  /// When each lookup came, in seconds since the epoch.
  func requestTimes() -> [Double] {
    let log = (try? String(contentsOfFile: directory + "/log", encoding: .utf8)) ?? ""
    return log.split(separator: "\n").compactMap { Double($0.split(separator: " ").first ?? "") }
  }

  /// SIGKILL: a child of the test process starts with SIGTERM blocked
  /// (as nginx does in BehindProxyEndToEndTests), and this one holds nothing.
  func stop() {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    try? FileManager.default.removeItem(atPath: directory)
  }
}
