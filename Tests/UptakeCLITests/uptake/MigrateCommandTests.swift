import Testing
import UptakeCore

@testable import uptake

@Suite("uptake migrate-to-clickhouse: its command line")
struct MigrateCommandTests {
  @Test("--clickhouse URL[,URL...] [--db PATH] [--replace-keys] [--block-events N]")
  func parses() throws {
    let plain = try MigrateToClickHouseCommand(arguments: [
      "--clickhouse", "http://a:8123,http://b:8123", "--db", "one.db",
    ])
    #expect(plain.databasePath == "one.db")
    #expect(plain.cluster.servers.map(\.url.absoluteString) == ["http://a:8123", "http://b:8123"])
    #expect(plain.blockEvents == MigrateToClickHouseCommand.defaultBlockEvents)
    #expect(!plain.replacingKeys)

    let full = try MigrateToClickHouseCommand(arguments: [
      "--clickhouse", "http://a:8123", "--clickhouse-cluster", "uptake", "--replace-keys",
      "--block-events", "2000",
    ])
    #expect(full.cluster.cluster == "uptake")
    #expect(full.replacingKeys)
    #expect(full.blockEvents == 2000)
  }

  @Test(
    "refuses",
    arguments: [
      (["--db", "one.db"], "name the cluster to copy into: --clickhouse URL[,URL...]"),
      (
        ["--clickhouse", "http://a:8123", "--block-events", "0"],
        #"--block-events needs a whole number above 0, not "0""#
      ),
      (["--clickhouse", "http://a:8123", "one.db"], "unexpected argument one.db"),
    ])
  func refuses(arguments: [String], message: String) {
    #expect(refusal(MigrateToClickHouseCommand.self, arguments) == .usage(message))
  }
}
