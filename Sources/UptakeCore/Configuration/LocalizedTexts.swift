/// Texts keyed by language, in document order, and the contract's fallback
/// for picking one: the request's language, else `en`, else the first.
public struct LocalizedTexts<Texts: Sendable & Equatable>: Sendable, Equatable {
  /// Lower-case language codes with their texts, in document order.
  public let byLanguage: [(language: String, texts: Texts)]

  init(_ byLanguage: [(language: String, texts: Texts)]) {
    self.byLanguage = byLanguage
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.byLanguage.count == rhs.byLanguage.count
      && zip(lhs.byLanguage, rhs.byLanguage).allSatisfy {
        $0.language == $1.language && $0.texts == $1.texts
      }
  }

  /// The language whose texts answer a request with `locale` (such as
  /// `de-AT`, `pt_BR` or `fr`), or nil when there are no texts at all.
  public func language(forLocale locale: String?) -> String? {
    if let locale, let wanted = Self.language(ofLocale: locale),
      byLanguage.contains(where: { $0.language == wanted })
    {
      return wanted
    }
    if byLanguage.contains(where: { $0.language == "en" }) { return "en" }
    return byLanguage.first?.language
  }

  /// The texts in `language`, if there are any.
  public func texts(in language: String) -> Texts? {
    byLanguage.first { $0.language == language }?.texts
  }

  /// The language part of a locale: what comes before the first `-` or `_`,
  /// lower-cased; nil when that is empty.
  public static func language(ofLocale locale: String) -> String? {
    let language = locale.utf8.prefix { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "_") }
    guard !language.isEmpty else { return nil }
    return String(decoding: language, as: UTF8.self).lowercased()
  }
}
