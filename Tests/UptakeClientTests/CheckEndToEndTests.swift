import Foundation
import Testing
import UptakeClient
import UptakeTestSupport

// `check()` fails open: whatever goes wrong, the app hears "no update" in
// time. A stub server plays every kind of wrong answer; the real uptaked
// plays the unreachable server.
@Suite("Update checks fail open", .timeLimit(.minutes(3)))
struct CheckEndToEndTests {
  private static let update = """
    {"hasupdate":1,"category":1,"updateid":"782000001589015","latestversion":"2.1.0","option":2,
     "popupinfo":{"title":"Neu","description":"Schneller","updatenow":"Jetzt","remindmelater":"Später",
     "ignore":"Ignorieren"},
     "updatedetails":{"reminder":5,"storeurl":"https://apps.apple.com/app/id1234567890","toforce":0}}
    """

  @Test("the check asks GET /v1/check with the install's facts and the ingest key")
  func request() async throws {
    let directory = try ScratchDirectory()
    defer { directory.remove() }
    let stub = try StubServer { _, _ in .respond(status: 200, body: CheckEndToEndTests.update) }
    defer { stub.stop() }
    let client = try testClient(stub.baseURL, key: "upi_k", storage: directory.appending("client"))
    guard case .update(let prompt) = await client.check() else {
      Issue.record("not an update")
      return
    }
    #expect(prompt.updateId == "782000001589015")
    #expect(prompt.option == .immediate)
    #expect(prompt.texts.remindMeLater == "Später")
    let request = try #require(stub.requests.first)
    #expect(request.method == "GET")
    #expect(
      request.target
        == "/v1/check?platform=ios&appVersion=2.0.0&osVersion=17.4&installId=\(client.installId)&locale=de-CH"
    )
    #expect(request.headers["authorization"] == "Bearer upi_k")
    #expect(request.headers["if-none-match"] == nil)
  }

  @Test("an ETag is sent back as If-None-Match, and a 304 reuses the answer, after a relaunch too")
  func etag() async throws {
    let directory = try ScratchDirectory()
    defer { directory.remove() }
    let stub = try StubServer { request, _ in
      if request.headers["if-none-match"] == #""v1-abc""# { return .respond(status: 304) }
      return .respond(status: 200, headers: ["ETag": #""v1-abc""#], body: CheckEndToEndTests.update)
    }
    defer { stub.stop() }
    let storage = directory.appending("client")
    let first = try await testClient(stub.baseURL, key: "upi_k", storage: storage).check()
    let second = try await testClient(stub.baseURL, key: "upi_k", storage: storage).check()
    guard case .update = first else {
      Issue.record("not an update: \(first)")
      return
    }
    #expect(second == first)
    #expect(stub.requests.map { $0.headers["if-none-match"] } == [nil, #""v1-abc""#])
  }

  @Test("a 304 without a cached answer is no update")
  func notModifiedWithoutCache() async throws {
    let directory = try ScratchDirectory()
    defer { directory.remove() }
    let stub = try StubServer { _, _ in .respond(status: 304) }
    defer { stub.stop() }
    let client = try testClient(stub.baseURL, key: "upi_k", storage: directory.appending("client"))
    #expect(await client.check() == .noUpdate)
  }

  @Test(
    "garbage, errors and unknown shapes are no update",
    arguments: [
      (200, "<html>oops</html>"), (200, #"{"hasupdate":1,"category":7,"updateid":"u"}"#),
      (200, ""), (500, #"{"error":{"code":"internal","message":"x"}}"#),
      (401, #"{"error":{"code":"unauthorized","message":"x"}}"#), (503, ""),
    ])
  func garbage(status: Int, body: String) async throws {
    let directory = try ScratchDirectory()
    defer { directory.remove() }
    let stub = try StubServer { _, _ in .respond(status: status, body: body) }
    defer { stub.stop() }
    let client = try testClient(stub.baseURL, key: "upi_k", storage: directory.appending("client"))
    #expect(await client.check() == .noUpdate)
  }

  @Test("a server that never answers is no update; the client gives up at the check timeout")
  func hangingServer() async throws {
    let directory = try ScratchDirectory()
    defer { directory.remove() }
    let stub = try StubServer { _, _ in .hang }
    defer { stub.stop() }
    let client = try testClient(stub.baseURL, key: "upi_k", storage: directory.appending("client"))
    #expect(await client.check() == .noUpdate)
    // Timed by the stub's thread: when this test process is busy, its async
    // work may resume late, but the connection closes on time.
    let asked = try #require(stub.requests.first).received
    let deadline = Date().addingTimeInterval(10)
    while stub.givenUp.isEmpty && Date() < deadline {
      try await Task.sleep(nanoseconds: 20_000_000)
    }
    let gaveUp = try #require(stub.givenUp.first, "the client never closed the connection")
    #expect(
      gaveUp.timeIntervalSince(asked) < 5,
      "checkTimeout is 1 s (URLSession's default would be 60 s)")
  }

  @Test("uptaked down, or without /v1/check yet: no update")
  func daemonDownOrWithoutCheck() async throws {
    let scene = try DaemonScene()
    defer { scene.tearDown() }
    let daemon = scene.daemon
    let client = try scene.client()
    // Whether this uptaked answers the check or not, with no configuration
    // loaded there is no prompt.
    #expect(await client.check() == .noUpdate)
    daemon.stop()
    #expect(await client.check() == .noUpdate)
  }
}
