/// What one App Store lookup (`GET {base}/{country}/lookup?id={id}`)
/// said, read from Apple's JSON: the version the store serves there, or that
/// the app is not sold there (`resultCount` 0).
public enum StoreLookupAnswer: Sendable, Equatable {
  case serves(version: Version, minimumOsVersion: Version?)
  case notSold

  /// The answer in `body`, or why it is not one: Apple's lookup sometimes
  /// answers HTML, a truncated body or another app, and none of those may
  /// move what a check offers.
  public static func parse(_ body: [UInt8], appId: String) -> Result<
    StoreLookupAnswer, StoreLookupProblem
  > {
    let root: JSONValue
    do throws(JSONParseError) {
      root = try JSONParser().parse(body)
    } catch {
      return .failure(.garbage("not JSON (\(error.message) at byte \(error.offset))"))
    }
    guard case .object(let members) = root,
      case .number(let count)? = members.first(where: { $0.0 == "resultCount" })?.1,
      count.isInteger, let resultCount = Int(count.text), resultCount >= 0
    else { return .failure(.garbage("no resultCount")) }
    guard case .array(let results)? = members.first(where: { $0.0 == "results" })?.1 else {
      return .failure(.garbage("no results"))
    }
    if resultCount == 0 && results.isEmpty { return .success(.notSold) }
    // The app asked for, when several come back (a lookup by bundle id can).
    for case .object(let fields) in results {
      let field = { (name: String) in fields.first(where: { $0.0 == name })?.1 }
      let trackId: String? =
        switch field("trackId") {
        case .number(let number)?: number.text
        case .string(let text)?: text
        default: nil
        }
      guard trackId == nil || trackId == appId else { continue }
      guard case .string(let text)? = field("version"), let version = Version(text) else {
        return .failure(.garbage("no version"))
      }
      var minimumOsVersion: Version?
      if case .string(let text)? = field("minimumOsVersion") { minimumOsVersion = Version(text) }
      return .success(.serves(version: version, minimumOsVersion: minimumOsVersion))
    }
    return .failure(.garbage("no result for app \(appId)"))
  }
}

/// Why a lookup told nothing: it keeps the last known state.
public enum StoreLookupProblem: Error, Sendable, Equatable, CustomStringConvertible {
  /// No answer in time, or no connection.
  case unreachable(String)
  /// An HTTP status other than 200; 403 and 429 are Apple's throttling.
  case status(Int)
  /// A 200 whose body is not a lookup answer.
  case garbage(String)

  public var description: String {
    switch self {
    case .unreachable(let reason): "unreachable: \(reason)"
    case .status(let status): "HTTP \(status)"
    case .garbage(let reason): "not a lookup answer: \(reason)"
    }
  }

  /// The outcome's name in `/metrics` and `/v1/store`: a fixed set.
  public var outcome: String {
    switch self {
    case .unreachable: "unreachable"
    case .status(let status) where status == 403 || status == 429: "throttled"
    case .status: "http_error"
    case .garbage: "garbage"
    }
  }
}
