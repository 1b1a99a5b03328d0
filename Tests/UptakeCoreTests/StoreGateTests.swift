import Testing

@testable import UptakeCore

/// The App Store gate (issue 24): what a country's lookups make live, and
/// what a check answers from it.
@Suite struct StoreGateTests {
  private static let hour: Int64 = 3_600_000

  private func version(_ text: String) -> Version { Version(text)! }

  private func serves(_ text: String, minimumOs: String? = nil)
    -> Result<StoreLookupAnswer, StoreLookupProblem>
  {
    .success(.serves(version: version(text), minimumOsVersion: minimumOs.map(version)))
  }

  @Test func aVersionIsLiveTheGraceAfterALookupFirstShowedIt() {
    var state = CountryStoreState()
    let grace = 24 * Self.hour
    #expect(state.availability(at: 0, graceMs: grace) == .nothingLive)
    state.record(serves("2.0"), at: 0)
    state.record(serves("2.1", minimumOs: "16.0"), at: 10 * Self.hour)
    #expect(state.availability(at: 23 * Self.hour, graceMs: grace) == .nothingLive)
    #expect(
      state.availability(at: 24 * Self.hour, graceMs: grace)
        == .live(version: version("2.0"), minimumOsVersion: nil))
    #expect(
      state.availability(at: 34 * Self.hour, graceMs: grace)
        == .live(version: version("2.1"), minimumOsVersion: version("16.0")))
    #expect(state.liveSinceMs(version("2.1"), graceMs: grace) == 34 * Self.hour)
  }

  @Test func aHigherVersionShownFirstMakesTheLowerLiveWithIt() {
    var state = CountryStoreState()
    state.record(serves("2.1"), at: 0)
    state.record(serves("2.0"), at: 5 * Self.hour)  // a lookup served by a lagging node
    #expect(state.liveSinceMs(version("2.0"), graceMs: Self.hour) == Self.hour)
    #expect(state.live(at: Self.hour, graceMs: Self.hour)?.version == version("2.1"))
  }

  @Test func failuresKeepTheLastKnownStateAndCountInARow() {
    var state = CountryStoreState()
    state.record(serves("2.0"), at: 0)
    state.record(.failure(.status(403)), at: Self.hour)
    state.record(.failure(.garbage("no resultCount")), at: 2 * Self.hour)
    #expect(state.failuresInARow == 2)
    #expect(state.lastLookup?.outcome == "garbage")
    #expect(state.live(at: 2 * Self.hour, graceMs: 0)?.version == version("2.0"))
    state.record(.success(.notSold), at: 3 * Self.hour)
    #expect(state.failuresInARow == 0)
    #expect(state.availability(at: 3 * Self.hour, graceMs: 0) == .notSold)
    state.record(serves("2.0"), at: 4 * Self.hour)
    #expect(
      state.availability(at: 4 * Self.hour, graceMs: 0)
        == .live(version: version("2.0"), minimumOsVersion: nil))
  }

  @Test func lookupAnswersAreReadOrRefused() {
    let apple = #"""
      {"resultCount":1,"results":[{"trackId":1234567890,"version":"2.1.0","minimumOsVersion":"15.0","trackName":"X"}]}
      """#
    #expect(
      StoreLookupAnswer.parse(Array(apple.utf8), appId: "1234567890")
        == .success(.serves(version: version("2.1.0"), minimumOsVersion: version("15.0"))))
    #expect(
      StoreLookupAnswer.parse(Array(#"{"resultCount":0,"results":[]}"#.utf8), appId: "1")
        == .success(.notSold))
    for garbage in [
      "<html>", #"{"results":[]}"#, #"{"resultCount":1}"#,
      #"{"resultCount":1,"results":[{"trackId":1,"version":"new"}]}"#,
      #"{"resultCount":1,"results":[{"trackId":999,"version":"2.0"}]}"#, #"{"resultCount":1,"res"#,
    ] {
      guard case .failure(.garbage) = StoreLookupAnswer.parse(Array(garbage.utf8), appId: "1")
      else {
        Issue.record("accepted \(garbage)")
        continue
      }
    }
    #expect(StoreLookupProblem.status(403).outcome == "throttled")
    #expect(StoreLookupProblem.status(500).outcome == "http_error")
  }

  /// An entry of latest 2.1.0, required 2.0.0, minimum OS 16.0, watched in the App Store.
  private func entry(option: String = "flexible", rollout: String = "100") -> UpdateEntry {
    configuration([
      entryJSON(
        replacing: [
          "appStore": #"{"id": "1234567890", "countries": ["us"]}"#,
          "option": "\"\(option)\"", "rolloutPercent": rollout,
        ])
    ])!.entries[0]
  }

  private func check(
    _ entry: UpdateEntry, _ appVersion: String, os: String? = "17.0", _ store: StoreAvailability
  ) -> GatedDecision {
    entry.decide(
      appVersion: version(appVersion), osVersion: os.map(version), installId: "install-1",
      store: store)
  }

  @Test func nothingLiveOrNotSoldIsNoPrompt() {
    #expect(check(entry(), "2.0.5", .nothingLive).decision == .noUpdate)
    #expect(check(entry(), "2.0.5", .nothingLive).held == .notLiveYet)
    #expect(check(entry(), "2.0.5", .notSold).held == .notSold)
    #expect(check(entry(), "2.1.0", .notSold).held == nil, "nothing to hold at the latest version")
  }

  @Test func thePromptOffersTheLiveVersionNeverAboveTheConfigured() {
    let below = check(entry(), "2.0.5", .live(version: version("2.0.8"), minimumOsVersion: nil))
    #expect(below.decision == .prompt(belowRequired: false))
    #expect(below.offeredVersion == version("2.0.8"))
    let above = check(entry(), "2.0.5", .live(version: version("3.0"), minimumOsVersion: nil))
    #expect(above.offeredVersion == version("2.1.0"))
    let atLive = check(entry(), "2.0.8", .live(version: version("2.0.8"), minimumOsVersion: nil))
    #expect(atLive.decision == .noUpdate && atLive.held == .notLiveYet)
  }

  @Test func belowRequiredIsForcedOnlyOnceTheRequiredVersionIsLive() {
    let live = check(entry(), "1.9", .live(version: version("2.0.0"), minimumOsVersion: nil))
    #expect(live.decision == .prompt(belowRequired: true) && live.held == nil)
    let notYet = check(entry(), "1.9", .live(version: version("1.9.5"), minimumOsVersion: nil))
    #expect(notYet.decision == .prompt(belowRequired: false), "the configured option's prompt")
    #expect(notYet.offeredVersion == version("1.9.5") && notYet.held == .forceHeld)
    let forceEntry = check(
      entry(option: "force"), "1.9", .live(version: version("1.9.5"), minimumOsVersion: nil))
    #expect(forceEntry.decision == .noUpdate && forceEntry.held == .forceHeld)
    let outsideRollout = check(
      entry(rollout: "0"), "1.9", .live(version: version("1.9.5"), minimumOsVersion: nil))
    #expect(outsideRollout.decision == .noUpdate && outsideRollout.held == .forceHeld)
  }

  @Test func theStoresMinimumOSAppliesWhenHigher() {
    let higher = check(
      entry(), "2.0.5", os: "16.5",
      .live(version: version("2.1.0"), minimumOsVersion: version("17.0")))
    #expect(higher.decision == .unsupportedOS && higher.minimumOsVersion == version("17.0"))
    let lower = check(
      entry(), "2.0.5", os: "16.5",
      .live(version: version("2.1.0"), minimumOsVersion: version("15.0")))
    #expect(
      lower.decision == .prompt(belowRequired: false) && lower.minimumOsVersion == version("16.0"))
  }

  @Test func anEntryWithoutTheWatchOrAtItsEndOfLifeIsNotGated() {
    let plain = configuration([entryJSON()])!.entries[0]
    let ungated = plain.decide(
      appVersion: version("2.0.5"), osVersion: nil, installId: nil, store: .nothingLive)
    #expect(ungated.decision == .prompt(belowRequired: false) && ungated.held == nil)
    let ended = configuration([
      entryJSON(
        replacing: [
          "appStore": #"{"id": "1", "countries": ["us"]}"#, "eol": "true", "eolMessage": #""Bye""#,
        ])
    ])!.entries[0]
    #expect(
      ended.decide(appVersion: version("2.0"), osVersion: nil, installId: nil, store: .notSold)
        .decision == .endOfLife)
  }
}
