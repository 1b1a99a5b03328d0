/// The field readers of `UpdateConfigurationDecoder`. Each reads one value,
/// and on a problem records "path: message" and returns nil, so the decoder
/// goes on and reports every problem of the document, not just the first.
struct ConfigurationProblems {
  private(set) var messages: [String] = []

  var isEmpty: Bool { messages.isEmpty }

  mutating func add(_ path: String, _ message: String) {
    messages.append("\(path): \(message)")
  }

  /// The members of an object by name. A name not in `known`, or given
  /// twice, is a problem, but the known members are still returned so that
  /// their own problems get reported in the same run.
  mutating func object(_ value: JSONValue, at path: String, known: Set<String>)
    -> [String: JSONValue]?
  {
    guard case .object(let members) = value else {
      add(path, "must be an object")
      return nil
    }
    var fields: [String: JSONValue] = [:]
    for (name, member) in members {
      if !known.contains(name) {
        add(path + "." + name, "unknown field")
      } else if fields.updateValue(member, forKey: name) != nil {
        add(path + "." + name, "given twice")
      }
    }
    return fields
  }

  /// Reads a field that must be present and not `null`.
  mutating func required<T>(
    _ value: JSONValue?, at path: String, because reason: String? = nil,
    _ read: (JSONValue, inout ConfigurationProblems) -> T?
  ) -> T? {
    guard let value, value != .null else {
      add(path, reason ?? "required")
      return nil
    }
    return read(value, &self)
  }

  /// Reads a field that may be missing or `null` (then nil, without a problem).
  mutating func optional<T>(
    _ value: JSONValue?, _ read: (JSONValue, inout ConfigurationProblems) -> T?
  ) -> T? {
    guard let value, value != .null else { return nil }
    return read(value, &self)
  }

  /// The required text field `name` of the object at `path`.
  mutating func requiredText(_ fields: [String: JSONValue], _ name: String, in path: String)
    -> String?
  {
    let fieldPath = path + "." + name
    return required(fields[name], at: fieldPath) { $1.text($0, at: fieldPath) }
  }

  /// A required string naming one of a closed set of values: what `parse`
  /// makes of it, or nil after recording the problem with the names to use.
  mutating func choice<T>(
    _ value: JSONValue?, at path: String, use names: String, _ parse: (String) -> T?
  ) -> T? {
    required(value, at: path) { (value, problems) -> T? in
      guard let name = problems.string(value, at: path) else { return nil }
      guard let parsed = parse(name) else {
        problems.add(path, "unknown value \"\(name)\" (use \(names))")
        return nil
      }
      return parsed
    }
  }

  mutating func string(_ value: JSONValue, at path: String) -> String? {
    guard case .string(let text) = value else {
      add(path, "must be a string")
      return nil
    }
    return text
  }

  /// Text a person reads in the prompt: 1 to `maxTextLength` characters.
  mutating func text(_ value: JSONValue, at path: String) -> String? {
    guard let text = string(value, at: path) else { return nil }
    let length = text.unicodeScalars.count
    guard (1...UpdateConfigurationDecoder.maxTextLength).contains(length) else {
      add(path, "must be 1 to \(UpdateConfigurationDecoder.maxTextLength) characters")
      return nil
    }
    return text
  }

  /// A version string, as `Version` reads it.
  mutating func version(_ value: JSONValue, at path: String) -> Version? {
    guard let text = string(value, at: path) else { return nil }
    guard text.unicodeScalars.count <= UpdateConfigurationDecoder.maxVersionLength,
      let version = Version(text)
    else {
      add(path, "not a version")
      return nil
    }
    return version
  }

  /// A URL the app may hand to the system to open: see `StoreURL`.
  mutating func storeURL(_ value: JSONValue, at path: String) -> String? {
    guard let text = string(value, at: path) else { return nil }
    if let problem = StoreURL.problem(text) {
      add(path, problem)
      return nil
    }
    return text
  }

  mutating func integer(_ value: JSONValue, at path: String, in range: ClosedRange<Int>) -> Int? {
    guard case .number(let number) = value, number.isInteger, let integer = Int(number.text),
      range.contains(integer)
    else {
      add(path, "must be an integer from \(range.lowerBound) to \(range.upperBound)")
      return nil
    }
    return integer
  }

  mutating func number(_ value: JSONValue, at path: String, in range: ClosedRange<Double>)
    -> Double?
  {
    guard case .number(let number) = value, let double = number.doubleValue,
      range.contains(double)
    else {
      add(
        path, "must be a number from \(range.lowerBound.formatted) to \(range.upperBound.formatted)"
      )
      return nil
    }
    return double
  }

  mutating func bool(_ value: JSONValue, at path: String) -> Bool? {
    guard case .bool(let flag) = value else {
      add(path, "must be true or false")
      return nil
    }
    return flag
  }

  /// Texts by language: an object keyed by language codes (2 to 8 letters,
  /// any case, kept lower-cased), with at least one language.
  mutating func localized<T>(
    _ value: JSONValue, at path: String,
    _ read: (JSONValue, String, inout ConfigurationProblems) -> T?
  ) -> LocalizedTexts<T>? {
    guard case .object(let members) = value else {
      add(path, "must be an object keyed by language, like {\"en\": {...}}")
      return nil
    }
    guard !members.isEmpty else {
      add(path, "give texts in at least one language")
      return nil
    }
    var byLanguage: [(language: String, texts: T)] = []
    var isValid = true
    for (name, member) in members {
      let language = name.lowercased()
      guard (2...8).contains(name.utf8.count), name.utf8.allSatisfy(Self.isLetter) else {
        add(path + "." + name, "not a language code (use 2 to 8 letters, like en or de)")
        isValid = false
        continue
      }
      if byLanguage.contains(where: { $0.language == language }) {
        add(path + "." + name, "given twice")
        isValid = false
        continue
      }
      if let texts = read(member, path + "." + name, &self) {
        byLanguage.append((language, texts))
      } else {
        isValid = false
      }
    }
    return isValid ? LocalizedTexts(byLanguage) : nil
  }

  private static func isLetter(_ byte: UInt8) -> Bool {
    (byte | 0x20) &- UInt8(ascii: "a") < 26
  }
}

extension Double {
  /// `100` rather than `100.0` in messages.
  fileprivate var formatted: String {
    self == rounded() ? String(Int(self)) : String(self)
  }
}
