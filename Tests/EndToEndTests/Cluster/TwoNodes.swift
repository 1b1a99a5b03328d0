import Foundation
import UptakeTestSupport

/// Two shards and two nodes over them, the second started once the
/// first has published its default app, so the second takes it at start
/// and makes none of its own.
struct TwoNodes {
  let shards: ClickHouseShards
  let flags: [String]
  let first: DaemonFixture
  let secondScratch: ScratchDirectory
  let second: Daemon

  init() throws {
    shards = try ClickHouseShards(count: 2)
    flags = NodeShippingEndToEndTests.nodeArguments(shards)
    first = try DaemonFixture(arguments: flags)
    let flags = flags
    try NodeShippingEndToEndTests.waitFor("the default app in the cluster", seconds: 15) {
      try uptake(["apps", "list"] + flags).standardOutput.contains("default")
    }
    secondScratch = try ScratchDirectory()
    second = try Daemon(
      databasePath: secondScratch.databasePath, logPath: secondScratch.path("uptaked.log"),
      arguments: flags)
  }

  func tearDown() {
    second.stop()
    secondScratch.remove()
    first.tearDown()
    shards.stopAll()
  }

  /// An update configuration of one iOS entry, as `uptake updates put`
  /// takes it.
  static func configuration(updateId: String, latestVersion: String) -> String {
    """
    {"updates": [{"updateId": "\(updateId)", "platform": "ios", "latestVersion": "\(latestVersion)",
     "storeUrl": "https://apps.apple.com/app/id1", "option": "flexible", "eol": false,
     "texts": {"en": {"title": "New", "description": "D", "updateNow": "Update",
     "remindMeLater": "Later", "ignore": "Ignore"}}}]}
    """
  }
}
