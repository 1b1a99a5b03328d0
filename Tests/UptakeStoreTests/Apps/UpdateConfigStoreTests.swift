import Foundation
import Synchronization
import Testing
import UptakeCore
import UptakeStore
import UptakeTestSupport

/// A valid configuration with one iOS entry of `latestVersion`.
private func iosConfiguration(latestVersion: String, updateId: String = "u-ios")
  throws -> UpdateConfiguration
{
  let text = """
    {"updates": [{"updateId": "\(updateId)", "platform": "ios", "latestVersion": "\(latestVersion)",
      "storeUrl": "https://apps.apple.com/app/id1", "option": "force",
      "texts": {"en": {"title": "T", "description": "D", "updateNow": "U"}}}]}
    """
  return try UpdateConfigurationDecoder.decode(Array(text.utf8)).get()
}

/// The test's database with the app "shop", and the app's number.
private func shopDatabase(_ scratch: ScratchDirectory) throws -> (Database, Int64) {
  let database = try scratch.openDatabase()
  _ = try AppRegistry.add("shop", in: database, nowMs: 1)
  return (database, try #require(try AppRegistry.find("shop", in: database)).appNo)
}

@Suite struct UpdateConfigStoreTests {
  @Test func everyPutIsANewVersionAndTheLastIsLive() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let (database, appNo) = try shopDatabase(scratch)
    #expect(try UpdateConfigStore.live(appNo: appNo, in: database) == nil)

    let first = try iosConfiguration(latestVersion: "2.0")
    let second = try iosConfiguration(latestVersion: "2.1")
    #expect(try UpdateConfigStore.put(first, appNo: appNo, in: database, nowMs: 1000) == 1)
    #expect(try UpdateConfigStore.put(second, appNo: appNo, in: database, nowMs: 2000) == 2)

    let live = try #require(try UpdateConfigStore.live(appNo: appNo, in: database))
    #expect(live.version == 2)
    #expect(live.createdAtMs == 2000)
    #expect(live.documentText == second.documentText)
    let history = try UpdateConfigStore.history(appNo: appNo, in: database)
    #expect(history.map(\.version) == [1, 2])
    #expect(history.map(\.documentText) == [first.documentText, second.documentText])
    #expect(
      try UpdateConfigStore.version(1, appNo: appNo, in: database)?.documentText
        == first.documentText)
    #expect(try UpdateConfigStore.version(3, appNo: appNo, in: database) == nil)
    #expect(try UpdateConfigStore.liveVersions(in: database) == [appNo: 2])
  }

  @Test func appsHaveTheirOwnVersions() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    _ = try AppRegistry.add("a", in: database, nowMs: 1)
    _ = try AppRegistry.add("b", in: database, nowMs: 1)
    let a = try #require(try AppRegistry.find("a", in: database)).appNo
    let b = try #require(try AppRegistry.find("b", in: database)).appNo
    try UpdateConfigStore.put(
      try iosConfiguration(latestVersion: "1"), appNo: a, in: database, nowMs: 1)
    try UpdateConfigStore.put(
      try iosConfiguration(latestVersion: "2"), appNo: a, in: database, nowMs: 2)
    #expect(
      try UpdateConfigStore.put(
        try iosConfiguration(latestVersion: "3"), appNo: b, in: database, nowMs: 3) == 1)
    #expect(try UpdateConfigStore.liveVersions(in: database) == [a: 2, b: 1])
  }

  @Test func latestVersionIsTheFunnelsTarget() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let (database, appNo) = try shopDatabase(scratch)
    #expect(
      try UpdateConfigStore.liveEntry(appNo: appNo, updateId: "u-ios", in: database) == nil)
    try UpdateConfigStore.put(
      try iosConfiguration(latestVersion: "2.10.0"), appNo: appNo, in: database, nowMs: 1)
    #expect(
      try UpdateConfigStore.liveEntry(appNo: appNo, updateId: "u-ios", in: database)?.latestVersion
        .text == "2.10.0"
    )
    #expect(
      try UpdateConfigStore.liveEntry(appNo: appNo, updateId: "other", in: database) == nil)
  }
}

@Suite struct UpdateConfigDirectoryTests {
  @Test func picksUpAnotherConnectionsPutWithinASecond() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let (database, appNo) = try shopDatabase(scratch)
    try UpdateConfigStore.put(
      try iosConfiguration(latestVersion: "2.0"), appNo: appNo, in: database, nowMs: 1)

    let compiles = Atomic<Int>(0)
    let directory = try UpdateConfigDirectory(database: try Database(path: scratch.databasePath)) {
      stored -> String? in
      compiles.add(1, ordering: .relaxed)
      return stored.configuration?.entries.first?.latestVersion.text
    }
    #expect(directory.compiled(appNo: appNo) == "2.0")
    #expect(directory.version(appNo: appNo) == 1)
    let poller = Thread { directory.run() }
    poller.start()
    defer { directory.stop() }

    try UpdateConfigStore.put(
      try iosConfiguration(latestVersion: "2.1"), appNo: appNo, in: database, nowMs: 2)
    let putAt = Date()
    while directory.compiled(appNo: appNo) != "2.1" && Date().timeIntervalSince(putAt) < 5 {
      Thread.sleep(forTimeInterval: 0.01)
    }
    #expect(directory.compiled(appNo: appNo) == "2.1")
    #expect(Date().timeIntervalSince(putAt) < 1)
    #expect(directory.version(appNo: appNo) == 2)
    #expect(compiles.load(ordering: .relaxed) == 2, "only the changed app is compiled again")
  }

  @Test func otherWritesDoNotRecompile() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let (database, appNo) = try shopDatabase(scratch)
    try UpdateConfigStore.put(
      try iosConfiguration(latestVersion: "2.0"), appNo: appNo, in: database, nowMs: 1)
    let compiles = Atomic<Int>(0)
    let directory = try UpdateConfigDirectory(database: try Database(path: scratch.databasePath)) {
      _ -> Int? in
      compiles.add(1, ordering: .relaxed)
      return 1
    }
    _ = try AppRegistry.add("other", in: database, nowMs: 2)
    try directory.refresh()
    #expect(compiles.load(ordering: .relaxed) == 1)
    #expect(directory.compiled(appNo: appNo + 1) == nil)
  }
}
