/// `GET /` and `GET /dashboard/{file}`: the dashboard's page and every file
/// it loads, from the binary. Open, because the page asks for its read key
/// once it is loaded.
struct DashboardHandlers: Sendable {
  /// Sent with every dashboard answer: the page loads and asks for nothing
  /// but the daemon's own files and API, runs no inline script or style (so
  /// text from events never runs as code), is framed by no other page, and
  /// sends no Referer.
  static let securityHeaders = [
    (
      "Content-Security-Policy",
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
        + " connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
  ]
  /// A browser asks again on every load and gets a bodiless 304 while the
  /// tag holds, so a restarted daemon's page never runs beside the scripts
  /// of an older one.
  static let cacheControl = "no-cache"
  /// The file `GET /` answers.
  static let page = "index.html"

  let assets: DashboardAssets

  var routes: [Route] {
    [
      Route("GET", "/", access: .open) { request in
        .respond(respond(file: Self.page, to: request))
      },
      Route("GET", "/dashboard/{file}", access: .open) { request in
        .respond(respond(file: request.pathParameters[0], to: request))
      },
    ]
  }

  /// The file, `304` without a body when the client's copy has its tag, or
  /// the usual `404` for a name the binary does not hold.
  func respond(file name: String, to request: Request) -> Response {
    guard let asset = assets[name] else {
      var response = APIError.notFound.response
      response.headers += Self.securityHeaders
      return response
    }
    // A 304 carries the headers of the 200 it stands for (RFC 9110, 15.4.5).
    let headers =
      [("ETag", asset.answer.etag), ("Cache-Control", Self.cacheControl)] + Self.securityHeaders
    if let tags = request.head.header("if-none-match"), asset.answer.isNamed(byIfNoneMatch: tags) {
      return Response(status: 304, headers: headers)
    }
    return Response(
      status: 200, headers: [("Content-Type", asset.contentType)] + headers,
      body: asset.answer.body)
  }
}
