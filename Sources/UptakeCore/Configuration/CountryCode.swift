/// ISO 3166-1 alpha-2 country codes, as the App Store's lookup takes them
/// (`/us/lookup`): lower case, assigned codes only, so a typo such as
/// `"uk"` (the code is `gb`) is caught when the configuration is put rather
/// than found as an app "not sold" there.
public enum CountryCode {
  /// The code of `text` in lower case, when it is an assigned one.
  public static func normalized(_ text: some StringProtocol) -> String? {
    let lowered = text.lowercased()
    return assigned.contains(lowered) ? lowered : nil
  }

  /// The region of a locale, `de-AT` or `de_AT` → `at`, `zh-Hant-TW` → `tw`,
  /// `en_US.UTF-8` → `us`; nil when it names none (`de`, `es-419`) or
  /// names no assigned code.
  public static func region(ofLocale locale: String) -> String? {
    let tag = locale.split(separator: ".", maxSplits: 1).first ?? ""
    let subtags = tag.split(whereSeparator: { $0 == "-" || $0 == "_" })
    // The language comes first; a region is the first later subtag of two
    // letters (a script has four, an area like 419 is digits).
    for subtag in subtags.dropFirst() where subtag.count == 2 {
      return normalized(subtag)
    }
    return nil
  }

  /// The 249 assigned codes, from Debian's iso-codes (iso_3166-1.json).
  static let assigned: Set<String> = [
    "ad", "ae", "af", "ag", "ai", "al", "am", "ao", "aq", "ar", "as", "at", "au", "aw", "ax", "az",
    "ba", "bb", "bd", "be", "bf", "bg", "bh", "bi", "bj", "bl", "bm", "bn", "bo", "bq", "br", "bs",
    "bt", "bv", "bw", "by", "bz", "ca", "cc", "cd", "cf", "cg", "ch", "ci", "ck", "cl", "cm", "cn",
    "co", "cr", "cu", "cv", "cw", "cx", "cy", "cz", "de", "dj", "dk", "dm", "do", "dz", "ec", "ee",
    "eg", "eh", "er", "es", "et", "fi", "fj", "fk", "fm", "fo", "fr", "ga", "gb", "gd", "ge", "gf",
    "gg", "gh", "gi", "gl", "gm", "gn", "gp", "gq", "gr", "gs", "gt", "gu", "gw", "gy", "hk", "hm",
    "hn", "hr", "ht", "hu", "id", "ie", "il", "im", "in", "io", "iq", "ir", "is", "it", "je", "jm",
    "jo", "jp", "ke", "kg", "kh", "ki", "km", "kn", "kp", "kr", "kw", "ky", "kz", "la", "lb", "lc",
    "li", "lk", "lr", "ls", "lt", "lu", "lv", "ly", "ma", "mc", "md", "me", "mf", "mg", "mh", "mk",
    "ml", "mm", "mn", "mo", "mp", "mq", "mr", "ms", "mt", "mu", "mv", "mw", "mx", "my", "mz", "na",
    "nc", "ne", "nf", "ng", "ni", "nl", "no", "np", "nr", "nu", "nz", "om", "pa", "pe", "pf", "pg",
    "ph", "pk", "pl", "pm", "pn", "pr", "ps", "pt", "pw", "py", "qa", "re", "ro", "rs", "ru", "rw",
    "sa", "sb", "sc", "sd", "se", "sg", "sh", "si", "sj", "sk", "sl", "sm", "sn", "so", "sr", "ss",
    "st", "sv", "sx", "sy", "sz", "tc", "td", "tf", "tg", "th", "tj", "tk", "tl", "tm", "tn", "to",
    "tr", "tt", "tv", "tw", "tz", "ua", "ug", "um", "us", "uy", "uz", "va", "vc", "ve", "vg", "vi",
    "vn", "vu", "wf", "ws", "ye", "yt", "za", "zm", "zw",
  ]
}
