import UptakeCore

/// The options `export` and `report` share: the app, the days, and which
/// events count by their test flag. Their errors name the flags, not the
/// HTTP parameters the rules were written for.
enum ReportOptions {
  static let valueFlags: Set<String> = ["--db", "--app", "--from", "--to", "--test"]

  static func appId(_ parsed: Arguments) throws(CommandError) -> String {
    guard let appId = parsed.value("--app") else { throw .usage("--app is required") }
    return appId
  }

  /// `--from` and `--to`, inclusive; the last 30 days up to today by default.
  static func range(_ parsed: Arguments) throws(CommandError) -> DayRange {
    switch DayRange.parse(
      from: parsed.value("--from"), to: parsed.value("--to"), nowMs: WallClock.nowMs())
    {
    case .success(let range): return range
    case .failure(let error): throw .usage(error)
    }
  }

  /// `--group-by K1,K2,...`; `date,updateId,action` by default.
  static func groupBy(_ parsed: Arguments) throws(CommandError) -> [GroupKey] {
    guard let text = parsed.value("--group-by") else { return GroupKey.defaultGrouping }
    switch GroupKey.parseList(text) {
    case .success(let keys): return keys
    case .failure(let error): throw .usage(error)
    }
  }

  static func test(_ parsed: Arguments) throws(CommandError) -> TestFilter {
    guard let text = parsed.value("--test") else { return .exclude }
    guard let test = TestFilter(rawValue: text) else {
      throw .usage("--test: use exclude, include or only")
    }
    return test
  }
}

extension CommandError {
  /// A report parameter's error in the command line's words:
  /// `groupBy: unknown key "x" ...` becomes `--group-by: unknown key "x" ...`.
  static func usage(_ error: ReportParameterError) -> CommandError {
    let flags = ["groupBy": "--group-by", "from": "--from", "to": "--to"]
    let message = error.message
    guard let colon = message.firstIndex(of: ":"), let flag = flags[String(message[..<colon])]
    else { return .usage(message) }
    return .usage(flag + message[colon...])
  }
}
