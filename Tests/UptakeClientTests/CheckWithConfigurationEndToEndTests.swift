import Foundation
import Testing
import UptakeClient
import UptakeTestSupport

/// `check()` against the real uptaked with a configuration loaded by the
/// real `uptake updates put`: the whole loop a newcomer sees.
@Suite("UptakeClient.check with a configuration loaded in uptaked", .timeLimit(.minutes(3)))
struct CheckWithConfigurationEndToEndTests {
  /// iOS: 2.1.0 offered flexibly, with German texts; below 1.5.0 forced.
  private static let configuration = """
    {"updates": [{"updateId": "782000001589015", "platform": "ios", "latestVersion": "2.1.0",
      "storeUrl": "https://apps.apple.com/app/id1234567890", "option": "flexible",
      "requiredVersion": "1.5.0", "reminderDays": 5, "rolloutPercent": 100,
      "texts": {
        "en": {"title": "New update", "description": "Faster", "updateNow": "Update Now",
               "remindMeLater": "Later", "ignore": "Ignore"},
        "de": {"title": "Neues Update", "description": "Schneller", "updateNow": "Jetzt",
               "remindMeLater": "Später", "ignore": "Ignorieren"}}}]}
    """

  private func put(_ scene: DaemonScene, _ text: String) async throws {
    let file = scene.directory.appending("updates.json")
    try Data(text.utf8).write(to: file)
    let status = try await ChildProcess().run(
      try BuiltProgram.path("uptake"),
      ["updates", "put", "--app", "default", file.path, "--db", scene.daemon.databasePath])
    try #require(status == 0)
  }

  /// Asks until the daemon has picked up the configuration (it polls the
  /// database; the contract gives it a second). The deadline is generous
  /// because a check that times out under a loaded CI machine also reads as
  /// no update; the loop ends at the first prompt.
  private func checkUntilUpdate(_ client: UptakeClient) async throws -> UpdateDecision {
    let deadline = Date().addingTimeInterval(20)
    var decision = await client.check()
    while decision == .noUpdate && Date() < deadline {
      try await Task.sleep(nanoseconds: 50_000_000)
      decision = await client.check()
    }
    return decision
  }

  @Test("the prompt comes back typed, in the install's language, and can be recorded")
  func promptInTheInstallsLanguage() async throws {
    let scene = try DaemonScene()
    defer { scene.tearDown() }
    let client = try scene.client()
    #expect(await client.check() == .noUpdate)
    try await put(scene, Self.configuration)

    let decision = try await checkUntilUpdate(client)
    guard case .update(let prompt) = decision else {
      Issue.record("expected an update, got \(decision)")
      return
    }
    #expect(prompt.updateId == "782000001589015")
    #expect(prompt.latestVersion == "2.1.0")
    #expect(prompt.option == .flexible)
    #expect(!prompt.isForced)
    #expect(prompt.reminderDays == 5)
    #expect(prompt.storeURL == URL(string: "https://apps.apple.com/app/id1234567890"))
    // The test client's locale is de-CH: the German texts.
    #expect(
      prompt.texts
        == PromptTexts(
          title: "Neues Update", description: "Schneller", updateNow: "Jetzt",
          remindMeLater: "Später", ignore: "Ignorieren"))

    client.record(.impression, updateId: prompt.updateId)
    client.record(.download, updateId: prompt.updateId)
    await client.flush()
    #expect(try scene.daemon.events(prompt.updateId, "impression") == 1)
    #expect(try scene.daemon.events(prompt.updateId, "download") == 1)
  }

  @Test("an install below the required version is forced; one on the latest has no update")
  func forcedAndUpToDate() async throws {
    let scene = try DaemonScene()
    defer { scene.tearDown() }
    try await put(scene, Self.configuration)
    let storage = scene.directory.appending("old")
    let old = try UptakeClient(
      configuration: UptakeConfiguration(
        baseURL: scene.daemon.baseURL, ingestKey: scene.daemon.ingestKey, appVersion: "1.4.9",
        platform: .ios, osVersion: "17.4", locale: "en", storageDirectory: storage,
        limits: .forTests()))
    let decision = try await checkUntilUpdate(old)
    guard case .update(let prompt) = decision else {
      Issue.record("expected a forced update, got \(decision)")
      return
    }
    #expect(prompt.isForced)
    #expect(prompt.option == .force)
    #expect(prompt.texts.title == "New update")

    let current = try UptakeClient(
      configuration: UptakeConfiguration(
        baseURL: scene.daemon.baseURL, ingestKey: scene.daemon.ingestKey, appVersion: "2.1.0",
        platform: .ios, osVersion: "17.4", locale: "en",
        storageDirectory: scene.directory.appending("current"), limits: .forTests()))
    #expect(await current.check() == .noUpdate)
  }
}
