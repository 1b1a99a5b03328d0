import Testing
import UptakeCore
import UptakeStore
import UptakeTestSupport

@Suite("AppRegistry: apps and their keys")
struct AppRegistryTests {
  @Test("add creates an app with an ingest key and a read key, both fresh")
  func addCreatesKeys() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()

    let keys = try AppRegistry.add("shop", in: database, nowMs: ms("2026-03-01T10:00:00Z"))

    #expect(keys.appId == "shop")
    #expect(keys.ingestKey.hasPrefix("upi_"))
    #expect(keys.readKey.hasPrefix("upr_"))
    // 24 random bytes in unpadded base64url: 32 characters after the prefix.
    #expect(keys.ingestKey.count == 36)
    #expect(keys.readKey.count == 36)
    #expect(keys.ingestKey.dropFirst(4) != keys.readKey.dropFirst(4))
    let found = try #require(try AppRegistry.find("shop", in: database))
    #expect(found.appId == "shop")
    #expect(found.createdAtMs == ms("2026-03-01T10:00:00Z"))
  }

  @Test("keys are stored only as hashes")
  func keysAreNotStored() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let keys = try AppRegistry.add("shop", in: database, nowMs: 0)

    let row = try database.statement("SELECT ingest_key_hash, read_key_hash FROM apps")
    #expect(try row.step())
    #expect(row.blob(0) == KeyToken.hash(keys.ingestKey))
    #expect(row.blob(1) == KeyToken.hash(keys.readKey))
    #expect(try !row.step())
  }

  @Test("list gives every app, by name")
  func listSortsByName() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    for appId in ["shop", "default", "news-2"] {
      _ = try AppRegistry.add(appId, in: database, nowMs: 0)
    }

    #expect(try AppRegistry.list(in: database).map(\.appId) == ["default", "news-2", "shop"])
    #expect(Set(try AppRegistry.list(in: database).map(\.appNo)).count == 3)
  }

  @Test("find of an unknown app is nil")
  func findUnknown() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()

    #expect(try AppRegistry.find("nope", in: database) == nil)
  }

  @Test("adding an app that exists is a conflict and leaves it as it was")
  func duplicateAppIsConflict() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    _ = try AppRegistry.add("shop", in: database, nowMs: 1)

    let error = #expect(throws: StoreError.self) {
      try AppRegistry.add("shop", in: database, nowMs: 2)
    }

    guard case .conflict(let message)? = error else {
      Issue.record("expected .conflict, got \(String(describing: error))")
      return
    }
    #expect(message == "app \"shop\" already exists")
    #expect(try AppRegistry.list(in: database).map(\.createdAtMs) == [1])
  }

  @Test(
    "an invalid app id is refused",
    arguments: ["", "-shop", "Shop", "shop_1", "shop app", "ß", String(repeating: "a", count: 64)])
  func invalidAppIdRefused(appId: String) throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()

    #expect(throws: StoreError.self) { try AppRegistry.add(appId, in: database, nowMs: 0) }
    #expect(try AppRegistry.list(in: database).isEmpty)
  }

  @Test("the longest and shortest valid app ids are accepted")
  func boundaryAppIds() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let longest = "9" + String(repeating: "a-", count: 31)

    _ = try AppRegistry.add("a", in: database, nowMs: 0)
    _ = try AppRegistry.add(longest, in: database, nowMs: 0)

    #expect(longest.count == 63)
    #expect(try AppRegistry.list(in: database).map(\.appId) == [longest, "a"])
  }

  @Test("rotate replaces one key with a fresh one of the same kind")
  func rotateReplacesKey() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let keys = try AppRegistry.add("shop", in: database, nowMs: 0)

    let ingest = try AppRegistry.rotate("shop", kind: .ingest, in: database)
    let read = try AppRegistry.rotate("shop", kind: .read, in: database)

    #expect(ingest.hasPrefix("upi_") && ingest != keys.ingestKey)
    #expect(read.hasPrefix("upr_") && read != keys.readKey)
    let row = try database.statement("SELECT ingest_key_hash, read_key_hash FROM apps")
    #expect(try row.step())
    #expect(row.blob(0) == KeyToken.hash(ingest))
    #expect(row.blob(1) == KeyToken.hash(read))
  }

  @Test("rotating a key of an unknown app is .notFound")
  func rotateUnknownApp() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()

    let error = #expect(throws: StoreError.self) {
      try AppRegistry.rotate("nope", kind: .read, in: database)
    }
    guard case .notFound? = error else {
      Issue.record("expected .notFound, got \(String(describing: error))")
      return
    }
  }

  @Test("the default app is created only in an empty database")
  func defaultAppOnlyWhenEmpty() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()

    let created = try AppRegistry.addDefaultIfEmpty(in: database, nowMs: 0)
    let again = try AppRegistry.addDefaultIfEmpty(in: database, nowMs: 0)

    #expect(created?.appId == "default")
    #expect(again == nil)
    #expect(try AppRegistry.list(in: database).map(\.appId) == ["default"])
  }
}
