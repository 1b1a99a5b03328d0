import Foundation
import Testing

@testable import UptakeClient

// Each answer shape of the contract's `/v1/check`, from JSON as the server
// writes it, to the typed decision an app switches over.
@Suite("Check answers decode into decisions")
struct CheckAnswerTests {
  private func decision(_ json: String) -> UpdateDecision? {
    CheckAnswer.decision(from: Data(json.utf8))
  }

  private let texts = PromptTexts(
    title: "New update is available!", description: "Faster sync", updateNow: "Update Now",
    remindMeLater: "Remind Me Later", ignore: "Ignore")

  @Test("no update")
  func noUpdate() {
    #expect(decision(#"{"hasupdate": 0}"#) == .noUpdate)
  }

  @Test("a flexible update with its prompt")
  func flexibleUpdate() {
    let answer = """
      {"hasupdate": 1, "category": 1, "updateid": "782000001589015", "latestversion": "2.1.0",
       "option": 1,
       "popupinfo": {"title": "New update is available!", "description": "Faster sync",
                     "updatenow": "Update Now", "remindmelater": "Remind Me Later",
                     "ignore": "Ignore"},
       "updatedetails": {"reminder": 5, "storeurl": "https://apps.apple.com/app/id1234567890",
                         "toforce": 0}}
      """
    #expect(
      decision(answer)
        == .update(
          UpdatePrompt(
            updateId: "782000001589015", latestVersion: "2.1.0", option: .flexible, texts: texts,
            reminderDays: 5, storeURL: URL(string: "https://apps.apple.com/app/id1234567890"),
            isForced: false)))
  }

  @Test("options 2 and 3 are immediate and force; toforce marks a forced install")
  func immediateAndForced() {
    let immediate = """
      {"hasupdate":1,"category":1,"updateid":"u2","latestversion":"3.0","option":2,
       "popupinfo":{"title":"t","description":"d","updatenow":"u","remindmelater":"r","ignore":"i"},
       "updatedetails":{"reminder":1,"storeurl":"https://example.com/app","toforce":1}}
      """
    guard case .update(let prompt) = decision(immediate) else {
      Issue.record("not an update")
      return
    }
    #expect(prompt.option == .immediate)
    #expect(prompt.isForced)
    #expect(prompt.reminderDays == 1)
    let force = #"{"hasupdate":1,"category":1,"updateid":"u3","latestversion":"3.0","option":3}"#
    guard case .update(let forced) = decision(force) else {
      Issue.record("not an update")
      return
    }
    #expect(forced.option == .force)
    #expect(forced.isForced, "option force without toforce still forces")
    #expect(
      forced.texts
        == PromptTexts(title: "", description: "", updateNow: "", remindMeLater: "", ignore: ""))
    #expect(forced.storeURL == nil)
  }

  @Test(
    "the OS is too old, for each alert type",
    arguments: [
      (0, UnsupportedOSAlert.none), (1, .later), (2, .freeze),
    ])
  func osTooOld(code: Int, alert: UnsupportedOSAlert) {
    let answer = """
      {"hasupdate": 1, "category": 2, "updateid": "782000001589015", "title": "iOS too old",
       "description": "Update iOS to get 2.1.0", "continue": "OK", "alerttype": \(code)}
      """
    #expect(
      decision(answer)
        == .osTooOld(
          UnsupportedOSNotice(
            updateId: "782000001589015", title: "iOS too old",
            description: "Update iOS to get 2.1.0", continueLabel: "OK", alertType: alert)))
  }

  @Test("end of life, with a message or with none")
  func endOfLife() {
    #expect(
      decision(#"{"hasupdate": 1, "category": 3, "updateid": "eol-1", "message": "Goodbye"}"#)
        == .endOfLife(EndOfLifeNotice(updateId: "eol-1", message: "Goodbye")))
    #expect(
      decision(#"{"hasupdate": 1, "category": 3, "updateid": "eol-1", "message": null}"#)
        == .endOfLife(EndOfLifeNotice(updateId: "eol-1", message: "")))
  }

  @Test("an integer update id reads as its decimal string")
  func integerUpdateId() {
    #expect(
      decision(#"{"hasupdate":1,"category":3,"updateid":782000001589015,"message":"m"}"#)
        == .endOfLife(EndOfLifeNotice(updateId: "782000001589015", message: "m")))
  }

  @Test(
    "answers an app cannot act on are not decisions",
    arguments: [
      "", "not json", "[]", #"{"category": 1}"#, #"{"hasupdate": 2}"#,
      #"{"hasupdate": 1}"#,
      #"{"hasupdate": 1, "category": 4, "updateid": "u"}"#,
      #"{"hasupdate": 1, "category": 1, "latestversion": "2.0", "option": 1}"#,
      #"{"hasupdate": 1, "category": 1, "updateid": "u", "option": 1}"#,
      #"{"hasupdate": 1, "category": 1, "updateid": "u", "latestversion": "2.0", "option": 4}"#,
      #"{"hasupdate": 1, "category": 2, "updateid": "u", "alerttype": 3}"#,
    ])
  func undecidable(body: String) {
    #expect(decision(body) == nil)
  }
}
