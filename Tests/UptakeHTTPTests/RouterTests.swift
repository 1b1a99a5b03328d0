import Testing
import UptakeCore
import UptakeHTTP
import UptakeStore

@Suite("Router: path, method and key, decided from the request head")
struct RouterTests {
  @Test("an unknown path is 404 not_found")
  func unknownPath() throws {
    try RouterFixture.with { (fixture) throws in
      for path in [
        "/", "/v1", "/v1/event", "/v1/events/extra", "/v1/updates/u1/x/y", "/v1/updates/",
      ] {
        let response = fixture.send("GET", path, key: fixture.keys.readKey)
        #expect(response.status == 404, "\(path)")
        #expect(response.bodyText == #"{"error":{"code":"not_found","message":"no such path"}}"#)
      }
    }
  }

  @Test("a known path with the wrong method is 405 with the methods it allows")
  func wrongMethod() throws {
    try RouterFixture.with { (fixture) throws in
      let onIngest = fixture.send("GET", "/v1/events", key: fixture.keys.ingestKey)
      #expect(onIngest.status == 405)
      #expect(onIngest.header("Allow") == "POST")
      #expect(onIngest.bodyText == #"{"error":{"code":"method_not_allowed","message":"use POST"}}"#)

      let onReport = fixture.send("DELETE", "/v1/updates", key: fixture.keys.readKey)
      #expect(onReport.status == 405)
      #expect(onReport.header("Allow") == "GET")

      let onOpen = fixture.send("POST", "/healthz")
      #expect(onOpen.status == 405)
      #expect(onOpen.header("Allow") == "GET")
    }
  }

  @Test("HEAD is served by a GET route")
  func headIsGet() throws {
    try RouterFixture.with { (fixture) throws in
      #expect(fixture.send("HEAD", "/healthz").status == 200)
    }
  }

  @Test("a request without a key is 401 unauthorized")
  func missingKey() throws {
    try RouterFixture.with { (fixture) throws in
      for (method, path) in [
        ("POST", "/v1/events"), ("GET", "/v1/updates"), ("GET", "/v1/updates/u1"),
      ] {
        let response = fixture.send(method, path)
        #expect(response.status == 401, "\(method) \(path)")
        #expect(
          response.bodyText
            == #"{"error":{"code":"unauthorized","message":"missing or unknown key"}}"#)
        #expect(response.header("WWW-Authenticate") == "Bearer")
      }
    }
  }

  @Test("an unknown key, or an empty one, is 401")
  func unknownKey() throws {
    try RouterFixture.with { (fixture) throws in
      #expect(fixture.send("POST", "/v1/events", key: "upi_not-a-key").status == 401)
      #expect(
        fixture.send("POST", "/v1/events", headers: ["Authorization": "Bearer "]).status == 401)
      #expect(fixture.send("POST", "/v1/events", headers: ["X-Uptake-Key": ""]).status == 401)
      #expect(
        fixture.send("POST", "/v1/events", headers: ["Authorization": fixture.keys.ingestKey])
          .status
          == 401, "a key without the Bearer scheme")
    }
  }

  @Test("a read key cannot ingest and an ingest key cannot read")
  func wrongKindOfKey() throws {
    try RouterFixture.with { (fixture) throws in
      #expect(fixture.send("POST", "/v1/events", key: fixture.keys.readKey).status == 401)
      #expect(fixture.send("GET", "/v1/updates", key: fixture.keys.ingestKey).status == 401)
      #expect(fixture.send("GET", "/v1/updates/u1", key: fixture.keys.ingestKey).status == 401)
    }
  }

  @Test("the key is taken from Authorization: Bearer or from X-Uptake-Key, names case-insensitive")
  func bothKeyHeaders() throws {
    try RouterFixture.with { (fixture) throws in
      let key = fixture.keys.ingestKey
      for headers in [
        ["Authorization": "Bearer \(key)"], ["authorization": "bearer \(key)"],
        ["AUTHORIZATION": "BEARER  \(key) "], ["X-Uptake-Key": key], ["x-uptake-key": key],
        ["Authorization": "Basic dXNlcjpwYXNz", "X-Uptake-Key": key],
      ] {
        let response = fixture.send("POST", "/v1/events", headers: headers)
        #expect(response.status == 200, "\(headers)")
        #expect(response.bodyText == "POST /v1/events app=shop", "\(headers)")
      }
    }
  }

  @Test("the request reaches the handler with its app and path parameters")
  func handlerGetsAppAndParameters() throws {
    try RouterFixture.with { (fixture) throws in
      let response = fixture.send("GET", "/v1/updates/782000001589015", key: fixture.keys.readKey)

      #expect(response.status == 200)
      #expect(
        response.bodyText == "GET /v1/updates/782000001589015 app=shop parameters=782000001589015")
    }
  }

  @Test("open routes need no key")
  func openRoutes() throws {
    try RouterFixture.with { (fixture) throws in
      #expect(fixture.send("GET", "/healthz").bodyText == "GET /healthz app=-")
    }
  }

  @Test("a route's admission check runs after the key check, before the handler")
  func admissionAfterAuthentication() throws {
    try RouterFixture.with { (fixture) throws in
      #expect(fixture.send("POST", "/v1/refused").status == 401)
      let refused = fixture.send("POST", "/v1/refused", key: fixture.keys.ingestKey)
      #expect(refused.status == 415)
      #expect(
        refused.bodyText
          == #"{"error":{"code":"unsupported_media_type","message":"refused by admit"}}"#)
    }
  }

  @Test(
    "a control character in the path, a query argument or a header is 400, before route and key",
    arguments: [
      ("/v1/updates/a\u{0}b", [:], [:]), ("/v1/updates\n", [:], [:]), ("/nowhere\u{7F}", [:], [:]),
      ("/v1/updates/a\tb", [:], [:]), ("/v1/updates", ["installId": "a\u{0}b"], [:]),
      ("/v1/updates", ["x\u{1B}": "1"], [:]), ("/v1/updates", [:], ["Accept": "a\u{0}"]),
      ("/v1/updates", [:], ["X-Uptake-Key": "k\r"]), ("/v1/updates", [:], ["A\u{1}": "b"]),
    ] as [(String, [String: String], [String: String])])
  func controlCharacters(path: String, query: [String: String], headers: [String: String]) throws {
    try RouterFixture.with { (fixture) throws in
      var headers = headers
      headers["Authorization"] = headers["Authorization"] ?? "Bearer \(fixture.keys.readKey)"
      let response = fixture.router.handle(
        Request(head: RequestHead(method: "GET", path: path, query: query, headers: headers))
      ).immediateResponse
      #expect(response?.status == 400)
      #expect(response?.bodyText.hasPrefix(#"{"error":{"code":"bad_request","message":"#) == true)
    }
  }

  @Test("a key followed by a control character never authenticates, in either header")
  func keyWithControlCharacter() throws {
    try RouterFixture.with { (fixture) throws in
      let key = fixture.keys.readKey
      for headers in [
        ["Authorization": "Bearer \(key)\u{0}junk"], ["Authorization": "Bearer \(key)\u{1}"],
        ["X-Uptake-Key": "\(key)\u{0}"], ["X-Uptake-Key": "\(key)\u{7F}"],
      ] {
        let response = fixture.send("GET", "/v1/updates", headers: headers)
        #expect(response.status == 400, "\(headers)")
        #expect(
          response.bodyText
            == #"{"error":{"code":"bad_request","message":"headers: must not contain control characters"}}"#
        )
      }
      let tabbed = fixture.send(
        "GET", "/v1/updates", headers: ["Authorization": "Bearer\t\(key)\t"])
      #expect(tabbed.status == 401, "a tab inside a value passes the check; Bearer wants a space")
      let spaced = fixture.send("GET", "/v1/updates", headers: ["Authorization": "Bearer \(key)\t"])
      #expect(spaced.status == 200, "a tab around a value is whitespace")
    }
  }

  @Test("decide() refuses from the head alone, without the body")
  func decideFromHead() throws {
    try RouterFixture.with { (fixture) throws in
      let head = RequestHead(
        method: "POST", path: "/v1/events",
        headers: ["Authorization": "Bearer \(fixture.keys.ingestKey)"])
      guard case .accept(let route, let request) = fixture.router.decide(head) else {
        Issue.record("expected the request to be accepted")
        return
      }
      #expect(route.method == "POST")
      #expect(request.app?.appId == "shop")
      guard
        case .refuse(let error) = fixture.router.decide(
          RequestHead(method: "POST", path: "/v1/events"))
      else {
        Issue.record("expected a refusal")
        return
      }
      #expect(error == .unauthorized)
    }
  }
}

/// A router over a temporary database with app "shop", whose routes echo
/// what reached them.
struct RouterFixture {
  let router: Router
  let keys: NewAppKeys

  static func with(_ body: (RouterFixture) throws -> Void) throws {
    let shop = try ShopDatabase()
    defer { shop.remove() }
    let echo: Handler = { request in
      var text = "\(request.method) \(request.path) app=\(request.app?.appId ?? "-")"
      if !request.pathParameters.isEmpty {
        text += " parameters=" + request.pathParameters.joined(separator: ",")
      }
      return .respond(.text(text))
    }
    let routes = [
      Route("POST", "/v1/events", access: .ingestKey, handler: echo),
      Route("GET", "/v1/updates", access: .readKey, handler: echo),
      Route("GET", "/v1/updates/{updateId}", access: .readKey, handler: echo),
      Route("GET", "/healthz", access: .open, handler: echo),
      Route(
        "POST", "/v1/refused", access: .ingestKey,
        admit: { _ in .unsupportedMediaType("refused by admit") }, handler: echo),
    ]
    try body(
      RouterFixture(router: Router(routes: routes, keys: try shop.keyDirectory()), keys: shop.keys))
  }

  /// Sends a request with the key as a Bearer token, when one is given.
  func send(_ method: String, _ path: String, key: String? = nil, headers: [String: String] = [:])
    -> Response
  {
    var headers = headers
    if let key { headers["Authorization"] = "Bearer \(key)" }
    let outcome = router.handle(
      Request(head: RequestHead(method: method, path: path, headers: headers)))
    guard let response = outcome.immediateResponse else {
      Issue.record("the echo routes answer at once")
      return Response(status: 0)
    }
    return response
  }
}
