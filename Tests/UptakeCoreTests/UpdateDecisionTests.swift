import Testing

@testable import UptakeCore

/// The iOS entry of the fixtures with `replacing` swapped in.
private func entry(_ replacing: [String: String] = [:]) throws -> UpdateEntry {
  try #require(configuration([entryJSON(replacing: replacing)])).entries[0]
}

private func decide(
  _ entry: UpdateEntry, _ appVersion: String, os: String? = nil, install: String? = "install-1"
) -> UpdateDecision {
  entry.decide(
    appVersion: Version(appVersion)!, osVersion: os.flatMap(Version.init), installId: install)
}

@Suite struct UpdateDecisionTests {
  @Test(
    arguments: [
      // At or above latestVersion (2.1.0): nothing, in version order.
      ("2.1.0", nil, UpdateDecision.noUpdate),
      ("2.1", nil, .noUpdate),
      ("2.10.0", nil, .noUpdate),
      ("2.1.0 (77)", nil, .noUpdate),
      // Between requiredVersion (2.0.0) and latestVersion: the configured prompt.
      ("2.0.0", nil, .prompt(belowRequired: false)),
      ("2.0.9", "17.0", .prompt(belowRequired: false)),
      ("2.1.0-beta.1", nil, .prompt(belowRequired: false)),
      // Below requiredVersion: forced.
      ("1.9.9", nil, .prompt(belowRequired: true)),
      ("2.0.0-rc.1", nil, .prompt(belowRequired: true)),
      // An OS older than minimumOsVersion (16.0); an unknown OS gets the prompt.
      ("2.0.5", "15.7.1", .unsupportedOS),
      ("1.0", "9.3", .unsupportedOS),
      ("2.0.5", "16", .prompt(belowRequired: false)),
    ] as [(String, String?, UpdateDecision)])
  func decisions(appVersion: String, os: String?, expected: UpdateDecision) throws {
    #expect(decide(try entry(), appVersion, os: os) == expected)
  }

  @Test func endOfLifeAnswersEveryInstall() throws {
    let eol = try entry(["eol": "true", "eolMessage": #""Use the web app""#])
    for version in ["1.0", "2.0.5", "2.1.0", "3.0"] {
      #expect(decide(eol, version, os: "9.0") == .endOfLife)
    }
  }

  @Test func optionForceIsForcedForEveryOlderInstall() throws {
    let forced = try entry(["option": #""force""#, "rolloutPercent": "0"])
    #expect(decide(forced, "2.0.5", install: nil) == .prompt(belowRequired: false))
    #expect(forced.option(belowRequired: false) == .force)
  }

  @Test func belowRequiredIsForcedWhateverTheOption() throws {
    let flexible = try entry()
    #expect(flexible.option(belowRequired: true) == .force)
    #expect(flexible.option(belowRequired: false) == .flexible)
  }

  @Test func rolloutZeroReachesOnlyForcedInstalls() throws {
    let paused = try entry(["rolloutPercent": "0"])
    #expect(decide(paused, "2.0.5") == .noUpdate)
    #expect(decide(paused, "1.0") == .prompt(belowRequired: true))
    // The OS answer follows the prompt it replaces.
    #expect(decide(paused, "2.0.5", os: "15.0") == .noUpdate)
    #expect(decide(paused, "1.0", os: "15.0") == .unsupportedOS)
  }

  @Test func withoutAnInstallIdOnlyAFullRolloutReaches() throws {
    #expect(decide(try entry(["rolloutPercent": "99.9"]), "2.0.5", install: nil) == .noUpdate)
    #expect(
      decide(try entry(["rolloutPercent": "100"]), "2.0.5", install: nil)
        == .prompt(belowRequired: false))
    #expect(
      decide(try entry(["rolloutPercent": "50"]), "1.0", install: nil)
        == .prompt(belowRequired: true))
  }

  @Test func theSameInstallGetsTheSameAnswer() throws {
    let half = try entry(["rolloutPercent": "50"])
    for index in 0..<200 {
      let install = "install-\(index)"
      let first = decide(half, "2.0.5", install: install)
      #expect(decide(half, "2.0.5", install: install) == first)
    }
  }
}

@Suite struct RolloutTests {
  private static let installs = (0..<100_000).map { "9b2c\($0)-install" }

  @Test(arguments: [0.0, 0.5, 1, 10, 25, 50, 90, 99, 100])
  func theShareConvergesToThePercentage(percent: Double) {
    let reached = Self.installs.filter {
      Rollout.includes(installId: $0, updateId: "782000001589015", percent: percent)
    }.count
    let share = Double(reached) / Double(Self.installs.count) * 100
    // 100k draws: the standard deviation is at most 0.16 points.
    #expect(abs(share - percent) < 0.6, "share \(share)% at \(percent)%")
  }

  @Test func raisingThePercentageOnlyAddsInstalls() {
    var previous: Set<String> = []
    for percent in [0.0, 1, 5, 10, 20, 33.3, 50, 75, 99, 100] {
      let reached = Set(
        Self.installs.prefix(20_000).filter {
          Rollout.includes(installId: $0, updateId: "u-2.1", percent: percent)
        })
      #expect(previous.isSubset(of: reached), "lowering nobody at \(percent)%")
      previous = reached
    }
    #expect(previous.count == 20_000)
  }

  @Test func eachUpdateDrawsItsOwnSample() {
    let first = Set(
      Self.installs.prefix(10_000).filter {
        Rollout.includes(installId: $0, updateId: "u1", percent: 10)
      })
    let second = Set(
      Self.installs.prefix(10_000).filter {
        Rollout.includes(installId: $0, updateId: "u2", percent: 10)
      })
    // Independent 10% samples overlap in about 1% of installs, not 10%.
    #expect(first.intersection(second).count < 200)
  }

  /// Rollout buckets decide who sees a prompt in rollouts in progress: if
  /// this test fails, the function changed and installs would move in or out.
  @Test(
    arguments: [
      ("install-1", "782000001589015", UInt64(156_809)),
      ("", "u", 868_672),
      ("6F9619FF-8B86-D011-B42D-00C04FC964FF", "2.1.0", 743_193),
    ] as [(String, String, UInt64)])
  func bucketsNeverChange(installId: String, updateId: String, bucket: UInt64) {
    #expect(Rollout.bucket(installId: installId, updateId: updateId) == bucket)
  }
}

@Suite struct LocalizedTextsTests {
  private let texts = LocalizedTexts([("de", 1), ("en", 2), ("pt", 3)])
  private let withoutEnglish = LocalizedTexts([("fr", 1), ("de", 2)])

  @Test(arguments: [
    ("de", "de"), ("de-AT", "de"), ("DE_at", "de"), ("pt_BR", "pt"), ("ja-JP", "en"), ("", "en"),
    ("-x", "en"),
  ])
  func theRequestsLanguageElseEnglish(locale: String, expected: String) {
    #expect(texts.language(forLocale: locale) == expected)
  }

  @Test func noLocaleMeansEnglish() {
    #expect(texts.language(forLocale: nil) == "en")
  }

  @Test func elseTheFirstLanguage() {
    #expect(withoutEnglish.language(forLocale: "ja") == "fr")
    #expect(withoutEnglish.language(forLocale: "de-CH") == "de")
    #expect(LocalizedTexts<Int>([]).language(forLocale: "en") == nil)
  }
}
