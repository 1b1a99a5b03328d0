import Foundation
import Testing

@testable import UptakeCore

@Suite struct UpdateConfigurationDecoderTests {
  @Test func readsTheContractsExample() throws {
    let decoded = try #require(configuration([entryJSON()]))
    #expect(decoded.entries.count == 1)
    let entry = decoded.entries[0]
    #expect(entry.updateId == "782000001589015")
    #expect(entry.platform == .ios)
    #expect(entry.latestVersion.text == "2.1.0")
    #expect(entry.storeUrl == "https://apps.apple.com/app/id1234567890")
    #expect(entry.option == .flexible)
    #expect(entry.requiredVersion?.text == "2.0.0")
    #expect(entry.reminderDays == 5)
    #expect(entry.rolloutPercent == 100)
    #expect(entry.minimumOsVersion?.text == "16.0")
    #expect(entry.unsupportedOs.alertType == .later)
    #expect(entry.unsupportedOs.texts.texts(in: "en")?.continue == "OK")
    #expect(entry.eol == false)
    #expect(entry.eolMessage == nil)
    #expect(entry.texts.byLanguage.map(\.language) == ["en", "de"])
    #expect(entry.texts.texts(in: "de")?.remindMeLater == "Später")
    #expect(decoded.documentText == documentJSON([entryJSON()]))
  }

  @Test func anIntegerUpdateIdIsItsDecimalText() throws {
    let decoded = try #require(
      configuration([entryJSON(replacing: ["updateId": "782000001589015"])]))
    #expect(decoded.entries[0].updateId == "782000001589015")
  }

  @Test func optionalFieldsHaveDefaults() throws {
    let decoded = try #require(
      configuration([
        entryJSON(
          replacing: [
            "option": #""force""#,
            "texts": #"{"en": {"title": "T", "description": "D", "updateNow": "U"}}"#,
          ],
          dropping: [
            "requiredVersion", "reminderDays", "rolloutPercent", "minimumOsVersion",
            "unsupportedOs", "eol", "eolMessage",
          ])
      ]))
    let entry = decoded.entries[0]
    #expect(entry.requiredVersion == nil)
    #expect(entry.reminderDays == 1)
    #expect(entry.rolloutPercent == 100)
    #expect(entry.minimumOsVersion == nil)
    #expect(entry.unsupportedOs.alertType == .doNothing)
    #expect(entry.eol == false)
    #expect(entry.texts.texts(in: "en")?.ignore == "")
  }

  @Test func anEmptyListConfiguresNothing() throws {
    let decoded = try #require(configuration([]))
    #expect(decoded.entries.isEmpty)
  }

  @Test(
    arguments: [
      (["latestVersion": #""two""#], "updates[0].latestVersion: not a version"),
      (["latestVersion": "2.1"], "updates[0].latestVersion: must be a string"),
      (["requiredVersion": #""v2""#], "updates[0].requiredVersion: not a version"),
      (["minimumOsVersion": #""""#], "updates[0].minimumOsVersion: not a version"),
      (["requiredVersion": #""2.2""#], "updates[0].requiredVersion: above latestVersion 2.1.0"),
      (
        ["platform": #""windows""#],
        "updates[0].platform: unknown value \"windows\" (use ios, ipados, macos, tvos, watchos, visionos, android, other)"
      ),
      (
        ["option": #""soft""#],
        "updates[0].option: unknown value \"soft\" (use flexible, immediate or force)"
      ),
      (["rolloutPercent": "101"], "updates[0].rolloutPercent: must be a number from 0 to 100"),
      (["rolloutPercent": "-1"], "updates[0].rolloutPercent: must be a number from 0 to 100"),
      (["rolloutPercent": #""50""#], "updates[0].rolloutPercent: must be a number from 0 to 100"),
      (["reminderDays": "1.5"], "updates[0].reminderDays: must be an integer from 0 to 365"),
      (["reminderDays": "366"], "updates[0].reminderDays: must be an integer from 0 to 365"),
      (["eol": #""no""#], "updates[0].eol: must be true or false"),
      (["eol": "true"], "updates[0].eolMessage: required when eol is true"),
      (
        ["storeUrl": #""apps.apple.com/app""#],
        "updates[0].storeUrl: not an absolute URL (like https://apps.apple.com/app/id1234567890)"
      ),
      (
        ["storeUrl": #""https://x y""#],
        "updates[0].storeUrl: must not contain spaces, control or invisible characters"
      ),
      (["updateId": #""a b""#], "updates[0].updateId: use 1 to 64 of A-Z a-z 0-9 . _ : -"),
      (["updateId": "1.5"], "updates[0].updateId: must be a string or an integer"),
      (
        ["unsupportedOs": #"{"alertType": "block"}"#],
        "updates[0].unsupportedOs.alertType: unknown value \"block\" (use none, later or freeze)"
      ),
      (
        ["unsupportedOs": #"{"alertType": "freeze"}"#],
        "updates[0].unsupportedOs.texts: required when alertType is freeze"
      ),
      (
        [
          "unsupportedOs":
            #"{"alertType": "later", "texts": {"en": {"title": "T", "description": "D"}}}"#
        ],
        "updates[0].unsupportedOs.texts.en.continue: required"
      ),
      (["texts": "{}"], "updates[0].texts: give texts in at least one language"),
      (
        ["texts": "[]"],
        "updates[0].texts: must be an object keyed by language, like {\"en\": {...}}"
      ),
      (
        [
          "texts":
            #"{"en_US": {"title": "T", "description": "D", "updateNow": "U", "remindMeLater": "L", "ignore": "I"}}"#
        ],
        "updates[0].texts.en_US: not a language code (use 2 to 8 letters, like en or de)"
      ),
      (
        [
          "texts":
            #"{"en": {"title": "T", "description": "D", "updateNow": "U", "remindMeLater": "L"}}"#
        ],
        "updates[0].texts.en.ignore: required when option is flexible"
      ),
      (
        [
          "option": #""immediate""#,
          "texts": #"{"en": {"title": "T", "description": "D", "updateNow": "U"}}"#,
        ],
        "updates[0].texts.en.remindMeLater: required when option is immediate"
      ),
      (
        [
          "texts":
            #"{"en": {"title": "", "description": "D", "updateNow": "U", "remindMeLater": "L", "ignore": "I"}}"#
        ],
        "updates[0].texts.en.title: must be 1 to 1000 characters"
      ),
      (["rolloutPercnt": "10"], "updates[0].rolloutPercnt: unknown field"),
    ] as [([String: String], String)])
  func namesTheFieldAndEntry(replacing: [String: String], expected: String) {
    #expect(problems(documentJSON([entryJSON(replacing: replacing)])) == [expected])
  }

  @Test(
    "storeUrl: only a store's scheme, https, itms-apps or market, in any case",
    arguments: [
      "https://apps.apple.com/app/id1", "HTTPS://apps.apple.com/app/id1",
      "itms-apps://apps.apple.com/app/id1", "ITMS-Apps://apps.apple.com/app/id1",
      "market://details?id=com.example", "Market://details?id=com.example",
      "https://例え.jp/app",
    ])
  func storeSchemes(url: String) throws {
    let decoded = try #require(configuration([entryJSON(replacing: ["storeUrl": "\"\(url)\""])]))
    #expect(decoded.entries[0].storeUrl == url)
  }

  @Test(
    "storeUrl: any other scheme, an empty rest or a hidden character is refused",
    arguments: [
      (#"javascript:alert(document.domain)"#, #"scheme "javascript" is not allowed"#),
      (#"JavaScript:alert(1)"#, #"scheme "JavaScript" is not allowed"#),
      (#"http://apps.apple.com/app/id1"#, #"scheme "http" is not allowed"#),
      (#"file:///etc/passwd"#, #"scheme "file" is not allowed"#),
      (#"data:text/html,<script>alert(1)</script>"#, #"scheme "data" is not allowed"#),
      (#"intent://details#Intent;scheme=market;end"#, #"scheme "intent" is not allowed"#),
      (#"itms-services://?action=download-manifest"#, #"scheme "itms-services" is not allowed"#),
      (#"vbscript:msgbox"#, #"scheme "vbscript" is not allowed"#),
      (#"https:"#, "not an absolute URL"),
      (#"market:"#, "not an absolute URL"),
      (#":https://x"#, "not an absolute URL"),
      (#"https://x\ty"#, "must not contain"),
      (#"https://x\u0085y"#, "must not contain"),
      (#"https://x\u00a0y"#, "must not contain"),
      (#"https://x\u2028y"#, "must not contain"),
      (#"https://x\u3000y"#, "must not contain"),
      (#"https://x\u200by"#, "must not contain"),
      (#"https://x\u202ey"#, "must not contain"),
      (#"https://x\ufeffy"#, "must not contain"),
      (#"\u00a0javascript:alert(1)"#, "must not contain"),
      ("https://x/" + String(repeating: "a", count: 2039), "must be at most 2048 bytes"),
    ])
  func storeSchemeRefused(json: String, problem: String) {
    let found = problems(documentJSON([entryJSON(replacing: ["storeUrl": "\"\(json)\""])]))
    #expect(found.count == 1)
    #expect(found.first?.hasPrefix("updates[0].storeUrl: " + problem) == true, "\(found)")
    if problem.hasPrefix("scheme") {
      #expect(found.first?.hasSuffix(" (use https, itms-apps or market)") == true, "\(found)")
    }
  }

  @Test(arguments: ["updateId", "platform", "latestVersion", "storeUrl", "option", "texts"])
  func requiredFields(name: String) {
    #expect(
      problems(documentJSON([entryJSON(dropping: [name])])) == ["updates[0].\(name): required"])
  }

  @Test func reportsEveryProblemAtOnce() {
    let text = documentJSON([
      entryJSON(replacing: ["latestVersion": #""x""#, "option": #""soft""#]),
      entryJSON(replacing: ["updateId": #""second""#, "rolloutPercent": "200"]),
    ])
    #expect(
      problems(text) == [
        "updates[0].latestVersion: not a version",
        "updates[0].option: unknown value \"soft\" (use flexible, immediate or force)",
        "updates[1].rolloutPercent: must be a number from 0 to 100",
      ])
  }

  @Test func onePlatformOneEntry() {
    let android = entryJSON(replacing: ["updateId": #""a1""#, "platform": #""android""#])
    let secondIOS = entryJSON(replacing: ["updateId": #""i2""#])
    #expect(
      problems(documentJSON([entryJSON(), android, secondIOS])) == [
        "updates[2].platform: \"ios\" is already configured by updates[0]"
      ])
  }

  @Test func oneUpdateIdOneEntry() {
    let android = entryJSON(replacing: ["platform": #""android""#])
    #expect(
      problems(documentJSON([entryJSON(), android])) == [
        "updates[1].updateId: \"782000001589015\" is already used by updates[0]; give each entry its own"
      ])
  }

  @Test func aKeyGivenTwiceIsAnError() {
    let text = documentJSON([
      entryJSON().replacingOccurrences(
        of: #""reminderDays": 5"#, with: #""reminderDays": 5, "reminderDays": 6"#)
    ])
    #expect(problems(text) == ["updates[0].reminderDays: given twice"])
  }

  @Test(arguments: [
    ("", "document: not JSON (unexpected end of input at byte 0)"),
    ("[]", "document: must be an object"),
    ("{}", "updates: required"),
    (#"{"updates": {}}"#, "updates: must be an array"),
    (#"{"updates": [], "extra": 1}"#, "document.extra: unknown field"),
    (#"{"updates": [1]}"#, "updates[0]: must be an object"),
  ])
  func documentShape(text: String, expected: String) {
    let found = problems(text)
    #expect(found.count == 1)
    #expect(
      found.first?.hasPrefix(String(expected.prefix(while: { $0 != "(" }))) == true, "\(found)")
  }

  @Test func aByteOrderMarkIsDropped() throws {
    let text = documentJSON([entryJSON()])
    let decoded = try UpdateConfigurationDecoder.decode([0xEF, 0xBB, 0xBF] + Array(text.utf8)).get()
    #expect(decoded.documentText == text)
  }

  @Test func aDocumentOverTheLimitIsRefusedUnread() {
    let text =
      documentJSON([]) + String(repeating: " ", count: UpdateConfigurationDecoder.maxDocumentBytes)
    #expect(problems(text) == ["document: larger than 1048576 bytes"])
  }
}
