/// Reads and validates an update configuration document as a whole: every
/// problem is reported, each as "path: message" naming the entry and field
/// (`updates[0].latestVersion: not a version`), so one run of
/// `uptake updates put` shows everything to fix.
///
/// Stricter than ingest on purpose: a field it does not know, or a field
/// given twice, is an error rather than ignored, because in a hand-edited
/// file that is a typo whose silent effect would reach every install.
public enum UpdateConfigurationDecoder {
  /// Large enough for every platform with texts in dozens of languages; a
  /// larger file is almost certainly not a configuration.
  public static let maxDocumentBytes = 1 << 20
  /// Longest text of a prompt, in Unicode scalars.
  public static let maxTextLength = 1000
  /// Longest store URL, in bytes: what browsers and stores handle everywhere.
  public static let maxURLLength = 2048
  /// Longest reminder interval, in days.
  public static let maxReminderDays = 365
  /// Versions are 1 to 32 characters, as in events.
  static let maxVersionLength = 32

  /// The validated configuration, or every problem found.
  public static func decode(_ document: [UInt8]) -> Result<
    UpdateConfiguration, UpdateConfigurationError
  > {
    // Some editors start UTF-8 files with a byte order mark; it is not JSON,
    // but it is not a mistake in the configuration either.
    let bytes = document.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(document.dropFirst(3)) : document
    guard bytes.count <= maxDocumentBytes else {
      return .failure(
        UpdateConfigurationError(["document: larger than \(maxDocumentBytes) bytes"]))
    }
    let root: JSONValue
    do throws(JSONParseError) {
      root = try JSONParser().parse(bytes)
    } catch {
      return .failure(
        UpdateConfigurationError(["document: not JSON (\(error.message) at byte \(error.offset))"]))
    }
    var problems = ConfigurationProblems()
    var entries: [(index: Int, entry: UpdateEntry)] = []
    if let document = problems.object(root, at: "document", known: ["updates"]) {
      switch document["updates"] {
      case nil:
        problems.add("updates", "required")
      case .array(let values)?:
        for (index, value) in values.enumerated() {
          if let entry = decodeEntry(value, at: "updates[\(index)]", &problems) {
            entries.append((index, entry))
          }
        }
        checkAcrossEntries(entries, &problems)
      default:
        problems.add("updates", "must be an array")
      }
    }
    guard problems.isEmpty else { return .failure(UpdateConfigurationError(problems.messages)) }
    return .success(
      UpdateConfiguration(
        entries: entries.map(\.entry), documentText: String(decoding: bytes, as: UTF8.self)))
  }

  private static let entryFields: Set<String> = [
    "updateId", "platform", "latestVersion", "storeUrl", "option", "requiredVersion",
    "reminderDays", "rolloutPercent", "minimumOsVersion", "unsupportedOs", "eol", "eolMessage",
    "texts", "appStore",
  ]

  private static func decodeEntry(
    _ value: JSONValue, at path: String, _ problems: inout ConfigurationProblems
  )
    -> UpdateEntry?
  {
    guard let fields = problems.object(value, at: path, known: entryFields) else { return nil }
    let before = problems.messages.count
    let updateId = updateIdentifier(fields["updateId"], at: path + ".updateId", &problems)
    let platform = problems.choice(
      fields["platform"], at: path + ".platform",
      use: Platform.allCases.map(\.rawValue).joined(separator: ", "), Platform.init(rawValue:))
    let latestVersion = problems.required(fields["latestVersion"], at: path + ".latestVersion") {
      $1.version($0, at: path + ".latestVersion")
    }
    let storeUrl = problems.required(fields["storeUrl"], at: path + ".storeUrl") {
      $1.storeURL($0, at: path + ".storeUrl")
    }
    let option = problems.choice(
      fields["option"], at: path + ".option", use: "flexible, immediate or force",
      UpdateOption.init(name:))
    let requiredVersion = problems.optional(fields["requiredVersion"]) {
      $1.version($0, at: path + ".requiredVersion")
    }
    let reminderDays =
      problems.optional(fields["reminderDays"]) {
        $1.integer($0, at: path + ".reminderDays", in: 0...maxReminderDays)
      } ?? 1
    let rolloutPercent =
      problems.optional(fields["rolloutPercent"]) {
        $1.number($0, at: path + ".rolloutPercent", in: 0...100)
      } ?? 100
    let minimumOsVersion = problems.optional(fields["minimumOsVersion"]) {
      $1.version($0, at: path + ".minimumOsVersion")
    }
    let unsupportedOs =
      problems.optional(fields["unsupportedOs"]) {
        unsupportedOSPrompt($0, at: path + ".unsupportedOs", &$1)
      } ?? .silent
    let (eol, eolMessage) = endOfLife(fields, at: path, &problems)
    let texts = problems.required(fields["texts"], at: path + ".texts") {
      (value, problems) -> LocalizedTexts<PromptTexts>? in
      problems.localized(value, at: path + ".texts") { (value, path, problems) in
        promptTexts(value, at: path, option: option, &problems)
      }
    }
    let appStore = problems.optional(fields["appStore"]) {
      appStoreWatch($0, at: path + ".appStore", &$1)
    }
    if appStore != nil, let platform, !AppStoreWatch.platforms.contains(platform) {
      problems.add(
        path + ".appStore",
        "only for an Apple platform ("
          + Platform.allCases.filter(AppStoreWatch.platforms.contains).map(\.rawValue)
          .joined(separator: ", ") + ")")
    }
    if let requiredVersion, let latestVersion, requiredVersion > latestVersion {
      problems.add(path + ".requiredVersion", "above latestVersion \(latestVersion.text)")
    }
    guard problems.messages.count == before, let updateId, let platform, let latestVersion,
      let storeUrl, let option, let texts
    else { return nil }
    return UpdateEntry(
      updateId: updateId, platform: platform, latestVersion: latestVersion, storeUrl: storeUrl,
      option: option, requiredVersion: requiredVersion, reminderDays: reminderDays,
      rolloutPercent: rolloutPercent, minimumOsVersion: minimumOsVersion,
      unsupportedOs: unsupportedOs, eol: eol, eolMessage: eolMessage, texts: texts,
      appStore: appStore)
  }

  /// `{"id": "1234567890", "countries": ["us", "de"], "graceHours": 24}`.
  private static func appStoreWatch(
    _ value: JSONValue, at path: String, _ problems: inout ConfigurationProblems
  ) -> AppStoreWatch? {
    guard
      let fields = problems.object(value, at: path, known: ["id", "countries", "graceHours"])
    else { return nil }
    let before = problems.messages.count
    let appId = problems.required(fields["id"], at: path + ".id") {
      (value, problems) -> String? in
      let text: String
      switch value {
      case .string(let string): text = string
      case .number(let number) where number.isInteger: text = number.text
      default: text = ""
      }
      guard (1...AppStoreWatch.maxAppIdDigits).contains(text.utf8.count),
        text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
      else {
        problems.add(path + ".id", "must be the App Store's numeric app id, such as \"1234567890\"")
        return nil
      }
      return text
    }
    let countries = problems.required(fields["countries"], at: path + ".countries") {
      countryCodes($0, at: path + ".countries", &$1)
    }
    let graceHours =
      problems.optional(fields["graceHours"]) {
        $1.integer($0, at: path + ".graceHours", in: 0...AppStoreWatch.maxGraceHours)
      } ?? AppStoreWatch.defaultGraceHours
    guard problems.messages.count == before, let appId, let countries else { return nil }
    return AppStoreWatch(appId: appId, countries: countries, graceHours: graceHours)
  }

  /// A non-empty array of distinct ISO 3166-1 alpha-2 codes, in lower case.
  private static func countryCodes(
    _ value: JSONValue, at path: String, _ problems: inout ConfigurationProblems
  ) -> [String]? {
    guard case .array(let values) = value, !values.isEmpty else {
      problems.add(path, "must be a non-empty array of country codes, such as [\"us\", \"de\"]")
      return nil
    }
    var codes: [String] = []
    var listedAt: [String: Int] = [:]
    var valid = true
    for (index, value) in values.enumerated() {
      let itemPath = "\(path)[\(index)]"
      guard let text = problems.string(value, at: itemPath) else {
        valid = false
        continue
      }
      guard let code = CountryCode.normalized(text) else {
        problems.add(itemPath, "\"\(text)\" is not an ISO 3166-1 alpha-2 country code")
        valid = false
        continue
      }
      if let first = listedAt[code] {
        problems.add(itemPath, "\"\(code)\" is already listed at \(path)[\(first)]")
        valid = false
        continue
      }
      listedAt[code] = index
      codes.append(code)
    }
    return valid ? codes : nil
  }

  /// The contract's update id: a string, or an integer kept as its decimal text.
  private static func updateIdentifier(
    _ value: JSONValue?, at path: String, _ problems: inout ConfigurationProblems
  ) -> String? {
    problems.required(value, at: path) { (value, problems) -> String? in
      let text: String
      switch value {
      case .string(let string): text = string
      case .number(let number) where number.isInteger:
        text = number.text == "-0" ? "0" : number.text
      default:
        problems.add(path, "must be a string or an integer")
        return nil
      }
      guard UpdateID.isValid(text) else {
        problems.add(path, "use 1 to 64 of A-Z a-z 0-9 . _ : -")
        return nil
      }
      return text
    }
  }

  /// The entry's `eol` flag and `eolMessage`, which an entry at its end of
  /// life must give.
  private static func endOfLife(
    _ fields: [String: JSONValue], at path: String, _ problems: inout ConfigurationProblems
  ) -> (eol: Bool, message: String?) {
    let eol = problems.optional(fields["eol"]) { $1.bool($0, at: path + ".eol") } ?? false
    let eolMessage = problems.optional(fields["eolMessage"]) {
      $1.text($0, at: path + ".eolMessage")
    }
    let eolMessageGiven = fields["eolMessage"].map { $0 != .null } ?? false
    if eol && !eolMessageGiven {
      problems.add(path + ".eolMessage", "required when eol is true")
    }
    return (eol, eolMessage)
  }

  private static func promptTexts(
    _ value: JSONValue, at path: String, option: UpdateOption?,
    _ problems: inout ConfigurationProblems
  ) -> PromptTexts? {
    guard
      let fields = problems.object(
        value, at: path, known: ["title", "description", "updateNow", "remindMeLater", "ignore"])
    else { return nil }
    let before = problems.messages.count
    let title = problems.requiredText(fields, "title", in: path)
    let description = problems.requiredText(fields, "description", in: path)
    let updateNow = problems.requiredText(fields, "updateNow", in: path)
    // The buttons an option shows need their labels; the others may be left
    // out. With an unknown option that is already reported, require nothing more.
    let remindMeLater =
      option == .force || option == nil
      ? problems.optional(fields["remindMeLater"]) { $1.text($0, at: path + ".remindMeLater") }
      : problems.required(
        fields["remindMeLater"], at: path + ".remindMeLater",
        because: option.map { "required when option is \($0.name)" }
      ) { $1.text($0, at: path + ".remindMeLater") }
    let ignore =
      option == .flexible
      ? problems.required(
        fields["ignore"], at: path + ".ignore", because: "required when option is flexible"
      ) { $1.text($0, at: path + ".ignore") }
      : problems.optional(fields["ignore"]) { $1.text($0, at: path + ".ignore") }
    guard problems.messages.count == before, let title, let description, let updateNow else {
      return nil
    }
    return PromptTexts(
      title: title, description: description, updateNow: updateNow,
      remindMeLater: remindMeLater ?? "", ignore: ignore ?? "")
  }

  private static func unsupportedOSPrompt(
    _ value: JSONValue, at path: String, _ problems: inout ConfigurationProblems
  ) -> UnsupportedOSPrompt? {
    guard let fields = problems.object(value, at: path, known: ["alertType", "texts"]) else {
      return nil
    }
    let alertType = problems.choice(
      fields["alertType"], at: path + ".alertType", use: "none, later or freeze",
      AlertType.init(name:))
    // An alert that shows nothing needs no texts; the others do. With an
    // unknown alert type that is already reported, require nothing more.
    let textsReader = { (value: JSONValue, problems: inout ConfigurationProblems) in
      problems.localized(value, at: path + ".texts") { (value, path, problems) in
        unsupportedOSTexts(value, at: path, &problems)
      }
    }
    let texts =
      alertType == .doNothing || alertType == nil
      ? problems.optional(fields["texts"], textsReader)
      : problems.required(
        fields["texts"], at: path + ".texts",
        because: alertType.map { "required when alertType is \($0.name)" }, textsReader)
    guard let alertType else { return nil }
    return UnsupportedOSPrompt(alertType: alertType, texts: texts ?? LocalizedTexts([]))
  }

  private static func unsupportedOSTexts(
    _ value: JSONValue, at path: String, _ problems: inout ConfigurationProblems
  ) -> UnsupportedOSTexts? {
    guard
      let fields = problems.object(value, at: path, known: ["title", "description", "continue"])
    else { return nil }
    let title = problems.requiredText(fields, "title", in: path)
    let description = problems.requiredText(fields, "description", in: path)
    let proceed = problems.requiredText(fields, "continue", in: path)
    guard let title, let description, let proceed else { return nil }
    return UnsupportedOSTexts(title: title, description: description, continue: proceed)
  }

  /// The rules that span entries: one entry per platform, one per update id.
  private static func checkAcrossEntries(
    _ entries: [(index: Int, entry: UpdateEntry)], _ problems: inout ConfigurationProblems
  ) {
    var platforms: [Platform: Int] = [:]
    var updateIds: [String: Int] = [:]
    for (index, entry) in entries {
      if let first = platforms[entry.platform] {
        problems.add(
          "updates[\(index)].platform",
          "\"\(entry.platform.rawValue)\" is already configured by updates[\(first)]")
      } else {
        platforms[entry.platform] = index
      }
      if let first = updateIds[entry.updateId] {
        problems.add(
          "updates[\(index)].updateId",
          "\"\(entry.updateId)\" is already used by updates[\(first)]; give each entry its own")
      } else {
        updateIds[entry.updateId] = index
      }
    }
  }
}
