import Foundation
import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

@Suite("KeyDirectory: which app and kind a key names")
struct KeyDirectoryTests {
  @Test("resolves an app's ingest key and read key to the app and their kind")
  func resolvesBothKinds() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let shop = try AppRegistry.add("shop", in: database, nowMs: 0)
    let news = try AppRegistry.add("news", in: database, nowMs: 0)
    let directory = try KeyDirectory(database: try Database(path: scratch.databasePath))

    let ingest = try #require(directory.resolve(shop.ingestKey))
    let read = try #require(directory.resolve(shop.readKey))
    let otherRead = try #require(directory.resolve(news.readKey))

    #expect(ingest.app.appId == "shop" && ingest.kind == .ingest)
    #expect(read.app.appId == "shop" && read.kind == .read)
    #expect(otherRead.app.appId == "news" && otherRead.kind == .read)
    #expect(ingest.app == read.app)
  }

  @Test("an unknown key, or no key at all, resolves to nothing")
  func unknownKeys() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let shop = try AppRegistry.add("shop", in: database, nowMs: 0)
    let directory = try KeyDirectory(database: try Database(path: scratch.databasePath))

    #expect(directory.resolve("upi_unknown") == nil)
    #expect(directory.resolve("") == nil)
    #expect(directory.resolve(shop.ingestKey + "x") == nil)
    #expect(directory.resolve(String(shop.ingestKey.dropLast())) == nil)
  }

  @Test("an app added through another connection resolves at once")
  func appAddedElsewhereResolvesImmediately() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let daemon = try scratch.openDatabase()
    _ = try AppRegistry.add("default", in: daemon, nowMs: 0)
    let directory = try KeyDirectory(database: try Database(path: scratch.databasePath))

    let cli = try Database(path: scratch.databasePath)
    let shop = try AppRegistry.add("shop", in: cli, nowMs: 0)

    #expect(directory.resolve(shop.ingestKey)?.app.appId == "shop")
    #expect(directory.resolve(shop.readKey)?.kind == .read)
  }

  @Test("a rotated key stops resolving within about a second; the new one works at once")
  func rotatedKeyStopsResolving() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let shop = try AppRegistry.add("shop", in: database, nowMs: 0)
    let directory = try KeyDirectory(database: try Database(path: scratch.databasePath))
    #expect(directory.resolve(shop.ingestKey) != nil)

    let cli = try Database(path: scratch.databasePath)
    let rotated = try AppRegistry.rotate("shop", kind: .ingest, in: cli)

    #expect(directory.resolve(rotated)?.kind == .ingest)
    Thread.sleep(forTimeInterval: 1.1)
    #expect(directory.resolve(shop.ingestKey) == nil)
    #expect(directory.resolve(shop.readKey)?.kind == .read)
  }

  @Test("digests compare by every byte: one differing in the first or last byte is another key")
  func digestEquality() {
    let digest = KeyToken.hash("upi_example")
    var lastDiffers = digest
    lastDiffers[31] ^= 1
    var firstDiffers = digest
    firstDiffers[0] ^= 0x80
    let keys = [KeyDigest(digest): "found"]

    #expect(KeyDigest(digest) == KeyDigest(KeyToken.hash("upi_example")))
    #expect(KeyDigest(digest) != KeyDigest(lastDiffers))
    #expect(KeyDigest(digest) != KeyDigest(firstDiffers))
    #expect(KeyDigest(digest) != KeyDigest(Array(digest.prefix(16))))
    #expect(keys[KeyDigest(digest)] == "found")
    #expect(keys[KeyDigest(lastDiffers)] == nil)
  }

  @Test("a key answered from memory before is still refused once rotated")
  func rememberedKeyStopsResolvingWhenRotated() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let shop = try AppRegistry.add("shop", in: database, nowMs: 0)
    let directory = try KeyDirectory(database: try Database(path: scratch.databasePath))
    for _ in 0..<3 { #expect(directory.resolve(shop.ingestKey)?.kind == .ingest) }

    _ = try AppRegistry.rotate("shop", kind: .ingest, in: try Database(path: scratch.databasePath))
    Thread.sleep(forTimeInterval: 1.1)

    #expect(directory.resolve(shop.ingestKey) == nil)
  }

  @Test("a key one byte off a remembered one resolves to nothing")
  func nearMissOfRememberedKey() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let shop = try AppRegistry.add("shop", in: database, nowMs: 0)
    let directory = try KeyDirectory(database: try Database(path: scratch.databasePath))
    #expect(directory.resolve(shop.ingestKey) != nil)

    let last = shop.ingestKey.last == "A" ? "B" : "A"
    #expect(directory.resolve(String(shop.ingestKey.dropLast()) + last) == nil)
    #expect(directory.resolve(shop.ingestKey + " ") == nil)
    #expect(directory.resolve(shop.ingestKey)?.app.appId == "shop")
  }
}
