import UptakeCore
import UptakeStore

/// The answers of one platform's entry.
struct PlatformAnswers: Sendable {
  let entry: UpdateEntry
  /// The prompt by language, as configured and as forced below the required version.
  private let prompt: [String: RenderedAnswer]
  private let forcedPrompt: [String: RenderedAnswer]
  private let unsupportedOS: [String: RenderedAnswer]
  private let endOfLife: RenderedAnswer
  let lockout: RenderedAnswer

  init(_ entry: UpdateEntry) {
    self.entry = entry
    var prompt: [String: RenderedAnswer] = [:]
    var forcedPrompt: [String: RenderedAnswer] = [:]
    for (language, texts) in entry.texts.byLanguage {
      prompt[language] = Self.prompt(
        entry, texts, belowRequired: false, offering: entry.latestVersion)
      forcedPrompt[language] = Self.prompt(
        entry, texts, belowRequired: true, offering: entry.latestVersion)
    }
    var unsupportedOS: [String: RenderedAnswer] = [:]
    for (language, texts) in entry.unsupportedOs.texts.byLanguage {
      unsupportedOS[language] = Self.unsupportedOS(entry, texts)
    }
    // An alert without texts (alert type none) still answers, with empty texts.
    unsupportedOS[""] = Self.unsupportedOS(entry, .empty)
    self.prompt = prompt
    self.forcedPrompt = forcedPrompt
    self.unsupportedOS = unsupportedOS
    endOfLife = Self.endOfLife(entry)
    lockout = Self.lockout(entry)
  }

  /// The answer for a decision, in the language the locale picks.
  func answer(_ decision: UpdateDecision, locale: String?) -> RenderedAnswer {
    switch decision {
    case .noUpdate:
      return .noUpdate
    case .endOfLife:
      return endOfLife
    case .prompt(let belowRequired):
      let language = entry.texts.language(forLocale: locale) ?? ""
      return (belowRequired ? forcedPrompt : prompt)[language] ?? .noUpdate
    case .unsupportedOS:
      let language = entry.unsupportedOs.texts.language(forLocale: locale) ?? ""
      return unsupportedOS[language] ?? unsupportedOS[""] ?? .noUpdate
    }
  }

  /// The answer for a decision the App Store gate has had its say on: a
  /// prompt offering a live version below the configured one is rendered
  /// for this check (a few microseconds); every other answer is the one
  /// rendered ahead.
  func answer(_ gated: GatedDecision, locale: String?) -> RenderedAnswer {
    guard case .prompt(let belowRequired) = gated.decision,
      gated.offeredVersion != entry.latestVersion,
      let language = entry.texts.language(forLocale: locale),
      let texts = entry.texts.texts(in: language)
    else { return answer(gated.decision, locale: locale) }
    return Self.prompt(entry, texts, belowRequired: belowRequired, offering: gated.offeredVersion)
  }

  /// Category 1: the update prompt, offering `version`.
  private static func prompt(
    _ entry: UpdateEntry, _ texts: PromptTexts, belowRequired: Bool, offering version: Version
  ) -> RenderedAnswer {
    let option = entry.option(belowRequired: belowRequired)
    var json = JSONWriter()
    json.beginObject()
    json.member("hasupdate", 1)
    json.member("category", 1)
    json.member("updateid", entry.updateId)
    json.member("latestversion", version.text)
    json.member("option", option.rawValue)
    json.key("popupinfo")
    json.beginObject()
    json.member("title", texts.title)
    json.member("description", texts.description)
    json.member("updatenow", texts.updateNow)
    json.member("remindmelater", texts.remindMeLater)
    json.member("ignore", texts.ignore)
    json.endObject()
    json.key("updatedetails")
    json.beginObject()
    json.member("reminder", entry.reminderDays)
    json.member("storeurl", entry.storeUrl)
    json.member("toforce", option == .force ? 1 : 0)
    json.endObject()
    json.endObject()
    return RenderedAnswer(json)
  }

  /// Category 2: the OS is too old for the update.
  private static func unsupportedOS(_ entry: UpdateEntry, _ texts: UnsupportedOSTexts)
    -> RenderedAnswer
  {
    var json = JSONWriter()
    json.beginObject()
    json.member("hasupdate", 1)
    json.member("category", 2)
    json.member("updateid", entry.updateId)
    json.member("title", texts.title)
    json.member("description", texts.description)
    json.member("continue", texts.continue)
    json.member("alerttype", entry.unsupportedOs.alertType.rawValue)
    json.endObject()
    return RenderedAnswer(json)
  }

  /// Category 3: end of life.
  private static func endOfLife(_ entry: UpdateEntry) -> RenderedAnswer {
    var json = JSONWriter()
    json.beginObject()
    json.member("hasupdate", 1)
    json.member("category", 3)
    json.member("updateid", entry.updateId)
    json.member("message", entry.eolMessage ?? "")
    json.endObject()
    return RenderedAnswer(json)
  }

  /// The VersionLockout shape; all null (and `eol` false) without an entry.
  static func lockout(_ entry: UpdateEntry?) -> RenderedAnswer {
    var json = JSONWriter()
    json.beginObject()
    json.key("recommendedVersion")
    if let entry { json.value(entry.latestVersion.text) } else { json.null() }
    json.key("requiredVersion")
    if let required = entry?.requiredVersion { json.value(required.text) } else { json.null() }
    json.key("updateUrl")
    if let entry { json.value(entry.storeUrl) } else { json.null() }
    json.key("eol")
    json.value(entry?.eol ?? false)
    json.key("message")
    if let message = entry?.eolMessage { json.value(message) } else { json.null() }
    json.endObject()
    return RenderedAnswer(json)
  }
}
