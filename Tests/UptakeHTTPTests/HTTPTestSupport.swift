import Foundation
import Testing
import UptakeCore
import UptakeHTTP
import UptakeStore
import UptakeTestSupport

/// What every handler test starts from: a migrated database with the app
/// "shop", in a scratch directory of its own; `remove()` deletes it.
struct ShopDatabase {
  let scratch: ScratchDirectory
  let database: Database
  let keys: NewAppKeys
  let appNo: Int64

  init() throws {
    scratch = try ScratchDirectory()
    database = try Database(path: scratch.databasePath)
    try Migrator.migrate(database)
    keys = try AppRegistry.add("shop", in: database, nowMs: 0)
    appNo = try #require(try AppRegistry.find("shop", in: database)).appNo
  }

  var databasePath: String { scratch.databasePath }

  /// The keys as a router checks them, over a connection of its own as in
  /// the server.
  func keyDirectory() throws -> KeyDirectory {
    try KeyDirectory(database: try Database(path: databasePath))
  }

  func remove() {
    scratch.remove()
  }
}

extension HandlerOutcome {
  /// The response of a handler that answers at once.
  var immediateResponse: Response? {
    if case .respond(let response) = self { return response }
    return nil
  }

  /// The response, at once or, for a deferred one, when it is given.
  func response() -> Response {
    switch self {
    case .respond(let response):
      return response
    case .deferred(let start):
      let answer = DeferredAnswer()
      start { answer.set($0) }
      return answer.wait()
    }
  }
}

extension Response {
  var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// A response given later, from another thread.
private final class DeferredAnswer: @unchecked Sendable {
  private let lock = NSLock()
  private let arrived = DispatchSemaphore(value: 0)
  private var response: Response?
  private var calls = 0

  func set(_ response: Response) {
    lock.withLock {
      self.response = response
      calls += 1
    }
    arrived.signal()
  }

  func wait() -> Response {
    guard arrived.wait(timeout: .now() + 10) == .success else {
      Issue.record("no answer within 10 s")
      return Response(status: 0)
    }
    return lock.withLock {
      #expect(calls == 1, "answered exactly once")
      return response ?? Response(status: 0)
    }
  }
}
