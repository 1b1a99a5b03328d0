import Testing

@testable import UptakeCore

/// An entry's `appStore` (issue 24): validated like the rest of the
/// document, every problem named by its path.
@Suite struct AppStoreWatchConfigurationTests {
  @Test func readsTheWatchWithItsDefaultGrace() throws {
    let decoded = try #require(
      configuration([
        entryJSON(replacing: ["appStore": #"{"id": "1234567890", "countries": ["us", "DE"]}"#])
      ]))
    let watch = try #require(decoded.entries.first?.appStore)
    #expect(watch == AppStoreWatch(appId: "1234567890", countries: ["us", "de"], graceHours: 24))
    #expect(watch.graceMs == 86_400_000)
  }

  @Test func anIntegerIdAndAGraceAreKept() throws {
    let decoded = try #require(
      configuration([
        entryJSON(
          replacing: ["appStore": #"{"id": 284882215, "countries": ["jp"], "graceHours": 0}"#])
      ]))
    #expect(
      decoded.entries.first?.appStore
        == AppStoreWatch(appId: "284882215", countries: ["jp"], graceHours: 0))
  }

  @Test func anEntryWithoutItHasNone() throws {
    #expect(try #require(configuration([entryJSON()])).entries.first?.appStore == nil)
  }

  @Test(
    arguments: [
      (
        #"{"id": "12ab", "countries": ["us"]}"#,
        #"updates[0].appStore.id: must be the App Store's numeric app id, such as "1234567890""#
      ),
      (
        #"{"id": "", "countries": ["us"]}"#,
        #"updates[0].appStore.id: must be the App Store's numeric app id, such as "1234567890""#
      ),
      (#"{"countries": ["us"]}"#, "updates[0].appStore.id: required"),
      (#"{"id": "1"}"#, "updates[0].appStore.countries: required"),
      (
        #"{"id": "1", "countries": []}"#,
        #"updates[0].appStore.countries: must be a non-empty array of country codes, such as ["us", "de"]"#
      ),
      (
        #"{"id": "1", "countries": ["us", "uk"]}"#,
        #"updates[0].appStore.countries[1]: "uk" is not an ISO 3166-1 alpha-2 country code"#
      ),
      (
        #"{"id": "1", "countries": ["usa"]}"#,
        #"updates[0].appStore.countries[0]: "usa" is not an ISO 3166-1 alpha-2 country code"#
      ),
      (
        #"{"id": "1", "countries": ["xx", "de", "DE"]}"#,
        #"updates[0].appStore.countries[2]: "de" is already listed at updates[0].appStore.countries[1]"#
      ),
      (
        #"{"id": "1", "countries": [7]}"#,
        "updates[0].appStore.countries[0]: must be a string"
      ),
      (
        #"{"id": "1", "countries": ["us"], "graceHours": 169}"#,
        "updates[0].appStore.graceHours: must be an integer from 0 to 168"
      ),
      (
        #"{"id": "1", "countries": ["us"], "graceHours": 1.5}"#,
        "updates[0].appStore.graceHours: must be an integer from 0 to 168"
      ),
      (
        #"{"id": "1", "countries": ["us"], "grace": 2}"#,
        "updates[0].appStore.grace: unknown field"
      ),
      (#""1234567890""#, "updates[0].appStore: must be an object"),
    ])
  func problemsAreNamed(appStore: String, expected: String) {
    #expect(
      problems(documentJSON([entryJSON(replacing: ["appStore": appStore])])).contains(expected))
  }

  @Test func onlyAnApplePlatformMayNameIt() {
    let android = entryJSON(
      replacing: [
        "platform": #""android""#, "storeUrl": #""market://details?id=com.example""#,
        "appStore": #"{"id": "1", "countries": ["us"]}"#,
      ])
    #expect(
      problems(documentJSON([android])) == [
        "updates[0].appStore: only for an Apple platform (ios, ipados, macos, tvos, watchos, visionos)"
      ])
  }

  @Test(
    arguments: [
      ("de-AT", "at"), ("de_AT", "at"), ("zh-Hant-TW", "tw"), ("en_US.UTF-8", "us"),
      ("pt-br", "br"),
    ])
  func aLocaleNamesItsRegion(locale: String, region: String) {
    #expect(CountryCode.region(ofLocale: locale) == region)
  }

  @Test(arguments: ["de", "es-419", "en-UK", "", "-", "zh-Hant"])
  func aLocaleWithoutAnAssignedRegionNamesNone(locale: String) {
    #expect(CountryCode.region(ofLocale: locale) == nil)
  }

  @Test func everyAssignedCodeAndNoOther() {
    #expect(CountryCode.assigned.count == 249)
    #expect(CountryCode.normalized("GB") == "gb")
    #expect(CountryCode.normalized("uk") == nil)
    #expect(CountryCode.normalized("u") == nil)
  }
}
