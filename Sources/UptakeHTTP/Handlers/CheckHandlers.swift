import UptakeCore
import UptakeStore

/// `GET /v1/check` and `GET /v1/lockout`: answered on the server's thread
/// from the compiled configurations in memory, without SQLite and without
/// the report workers, because every app launch asks.
struct CheckHandlers: Sendable {
  /// How long a client may reuse an answer, as the contract says; private,
  /// because the answer is one app's (its key chose it) and a shared cache
  /// keying it by URL alone would hand it to another app.
  static let cacheControl = "private, max-age=300"
  /// The request headers that select the answer: the key, in either
  /// header, names the app. The rest of what selects it is in the query.
  static let vary = "Authorization, X-Uptake-Key"
  /// The longest `installId`, as in events.
  static let maxInstallIdLength = 64
  /// The longest version in a query, as in events.
  static let maxVersionLength = 32

  let configurations: UpdateConfigDirectory<CheckAnswers>
  /// What each country's App Store serves, for entries that name one.
  let store: AppStoreWatcher

  var routes: [Route] {
    [
      Route("GET", "/v1/check", access: .ingestKey) { .respond(check($0)) },
      Route("GET", "/v1/lockout", access: .ingestKey) { .respond(lockout($0)) },
    ]
  }

  /// `GET /v1/check?platform=P&appVersion=V[&osVersion=O][&installId=I][&locale=L][&country=CC]`
  func check(_ request: Request) -> Response {
    guard let app = request.app else { return APIError.unauthorized.response }
    let platform: Platform
    let appVersion: Version
    var osVersion: Version?
    var installId: String?
    switch Self.platform(request) {
    case .success(let parsed): platform = parsed
    case .failure(let error): return error.response
    }
    switch Self.version(request, "appVersion") {
    case .success(let parsed?): appVersion = parsed
    case .success(nil): return APIError.badRequest("appVersion: required").response
    case .failure(let error): return error.response
    }
    switch Self.version(request, "osVersion") {
    case .success(let parsed): osVersion = parsed
    case .failure(let error): return error.response
    }
    if let text = request.query("installId"), !text.isEmpty {
      guard text.unicodeScalars.count <= Self.maxInstallIdLength else {
        return APIError.badRequest("installId: must be 1 to \(Self.maxInstallIdLength) characters")
          .response
      }
      installId = text
    }
    var country: String?
    if let text = request.query("country"), !text.isEmpty {
      guard let code = CountryCode.normalized(text) else {
        return APIError.badRequest("country: use an ISO 3166-1 alpha-2 code, such as us").response
      }
      country = code
    }
    guard let answers = configurations.compiled(appNo: app.appNo)?.platforms[platform] else {
      return Self.respond(.noUpdate, to: request)
    }
    let locale = request.query("locale")
    guard let watch = answers.entry.appStore else {
      let decision = answers.entry.decide(
        appVersion: appVersion, osVersion: osVersion, installId: installId)
      return Self.respond(answers.answer(decision, locale: locale), to: request)
    }
    // The country asked for, else the locale's region, else the first
    // watched. A country not watched has no store state: no prompt.
    let checked = country ?? locale.flatMap(CountryCode.region(ofLocale:)) ?? watch.countries[0]
    let gated = answers.entry.decide(
      appVersion: appVersion, osVersion: osVersion, installId: installId,
      store: store.availability(appId: watch.appId, country: checked, graceMs: watch.graceMs))
    if let hold = gated.held { store.held(hold) }
    return Self.respond(answers.answer(gated, locale: locale), to: request)
  }

  /// `GET /v1/lockout?platform=P`
  func lockout(_ request: Request) -> Response {
    guard let app = request.app else { return APIError.unauthorized.response }
    switch Self.platform(request) {
    case .success(let platform):
      let answers = configurations.compiled(appNo: app.appNo)?.platforms[platform]
      return Self.respond(answers?.lockout ?? CheckAnswers.noLockout, to: request)
    case .failure(let error):
      return error.response
    }
  }

  private static func platform(_ request: Request) -> Result<Platform, APIError> {
    guard let name = request.query("platform"), !name.isEmpty else {
      return .failure(.badRequest("platform: required"))
    }
    guard let platform = Platform(rawValue: name) else {
      return .failure(
        .badRequest(
          "platform: use one of " + Platform.allCases.map(\.rawValue).joined(separator: ", ")))
    }
    return .success(platform)
  }

  /// The query's version `name`: nil when absent or empty, an error when it
  /// is not a version.
  private static func version(_ request: Request, _ name: String) -> Result<Version?, APIError> {
    guard let text = request.query(name), !text.isEmpty else { return .success(nil) }
    guard text.unicodeScalars.count <= maxVersionLength, let version = Version(text) else {
      return .failure(.badRequest("\(name): not a version"))
    }
    return .success(version)
  }

  /// The answer, or `304` without a body when the client already has it.
  static func respond(_ answer: RenderedAnswer, to request: Request) -> Response {
    // A 304 carries the same caching headers as the 200 it stands for
    // (RFC 9110, 15.4.5), so a cache refreshing its copy keeps them.
    let headers = [("ETag", answer.etag), ("Cache-Control", cacheControl), ("Vary", vary)]
    if let tags = request.head.header("if-none-match"), answer.isNamed(byIfNoneMatch: tags) {
      return Response(status: 304, headers: headers)
    }
    return Response(
      status: 200, headers: [("Content-Type", "application/json")] + headers, body: answer.body)
  }
}
