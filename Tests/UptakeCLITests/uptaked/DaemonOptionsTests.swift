import Foundation
import Testing
import UptakeCluster
import UptakeHTTP
import UptakeTestSupport

@testable import uptaked

/// Parses `arguments` with `environment`; nil when they ask for help.
private func parse(_ arguments: [String], environment: [String: String] = [:]) throws(DaemonOptions
  .UsageError) -> DaemonOptions?
{
  try DaemonOptions.parse(arguments, environment: environment)
}

/// The message of the usage error `arguments` make, or nil when they parse.
private func usageError(_ arguments: [String]) -> String? {
  do {
    _ = try parse(arguments)
    return nil
  } catch {
    return error.message
  }
}

@Suite("uptaked: its command line")
struct DaemonOptionsTests {
  @Test("without flags or environment: ./uptake.db on 127.0.0.1:8080, log level info")
  func defaults() throws {
    let options = try #require(try parse([]))
    #expect(options.configuration.databasePath == "./uptake.db")
    #expect(options.configuration.listen == "127.0.0.1:8080")
    #expect(options.logLevel == "info")
    #expect(options.configuration.rateLimits.perKey == nil)
    #expect(options.configuration.writerLimits.maxFileBytes == nil)
    #expect(options.configuration.writerLimits.maxDistinctPerDay == 1000)
  }

  @Test("UPTAKE_DB and UPTAKE_LISTEN stand in for --db and --listen; the flags win")
  func environment() throws {
    let environment = ["UPTAKE_DB": "/data/env.db", "UPTAKE_LISTEN": "0.0.0.0:9000"]
    let fromEnvironment = try #require(try parse([], environment: environment))
    #expect(fromEnvironment.configuration.databasePath == "/data/env.db")
    #expect(fromEnvironment.configuration.listen == "0.0.0.0:9000")

    let flags = try #require(
      try parse(["--db", "flag.db", "--listen", "[::1]:0"], environment: environment))
    #expect(flags.configuration.databasePath == "flag.db")
    #expect(flags.configuration.listen == "[::1]:0")

    let empty = try #require(try parse([], environment: ["UPTAKE_DB": ""]))
    #expect(empty.configuration.databasePath == "./uptake.db", "an empty variable is unset")
  }

  @Test("--clickhouse and its companions name the cluster; UPTAKE_CLICKHOUSE* stand in for them")
  func cluster() throws {
    let none = try #require(try parse([]))
    #expect(!none.configuration.cluster.isEnabled, "one box unless a server is named")
    #expect(none.configuration.maxSpoolBytes == 4 << 30)

    let flags = try #require(
      try parse([
        "--clickhouse", "http://ch1:8123, https://ch2.example:8443/", "--clickhouse-database",
        "events_db", "--clickhouse-cluster", "shards2", "--max-spool-bytes", "512M",
      ]))
    #expect(
      flags.configuration.cluster.urls == [
        URL(string: "http://ch1:8123")!, URL(string: "https://ch2.example:8443")!,
      ])
    #expect(flags.configuration.cluster.database == "events_db")
    #expect(flags.configuration.cluster.cluster == "shards2")
    #expect(flags.configuration.maxSpoolBytes == 512 << 20)

    let environment = [
      "UPTAKE_CLICKHOUSE": "http://10.0.0.5:8123", "UPTAKE_CLICKHOUSE_DATABASE": "u2",
      "UPTAKE_CLICKHOUSE_CLUSTER": "c",
    ]
    let fromEnvironment = try #require(try parse([], environment: environment)).configuration
    #expect(fromEnvironment.cluster.urls == [URL(string: "http://10.0.0.5:8123")!])
    #expect(fromEnvironment.cluster.database == "u2" && fromEnvironment.cluster.cluster == "c")
    let flagsWin = try #require(
      try parse(["--clickhouse", "http://other:1"], environment: environment))
    #expect(flagsWin.configuration.cluster.urls == [URL(string: "http://other:1")!])

    #expect(try parse(["--max-spool-bytes", "1048576"])?.configuration.maxSpoolBytes == 1 << 20)
    #expect(try parse(["--max-spool-bytes", "2g"])?.configuration.maxSpoolBytes == 2 << 30)
  }

  @Test(
    "a cluster flag's bad value is refused, saying what it needs",
    arguments: [
      (["--clickhouse", "ch1:8123"], "--clickhouse needs http://HOST:PORT URLs"),
      (["--clickhouse", "http://ch1:8123/db?x=1"], "--clickhouse needs http://HOST:PORT URLs"),
      (["--clickhouse", "http://a:1,,http://b:1"], "not \"\""),
      (["--clickhouse-database", "uptake; DROP"], "--clickhouse-database needs a name"),
      (["--clickhouse-cluster", "9shards"], "--clickhouse-cluster needs a name"),
      (["--max-spool-bytes", "0"], "--max-spool-bytes needs a number of bytes"),
      (["--max-spool-bytes", "4T"], "--max-spool-bytes needs a number of bytes"),
      (["--max-spool-bytes", "99999999999G"], "--max-spool-bytes needs a number of bytes"),
    ])
  func badClusterValues(arguments: [String], message: String) throws {
    let error = try #require(usageError(arguments))
    #expect(error.contains(message), "\(error)")
  }

  @Test(
    "-h and --help ask for the usage; what follows them is not read", arguments: ["-h", "--help"])
  func help(flag: String) throws {
    #expect(try parse([flag]) == nil)
    #expect(try parse(["--db", "a.db", flag, "--nope"]) == nil)
  }

  @Test("the limits' flags set the limits")
  func limits() throws {
    let options = try #require(
      try parse([
        "--threads", "4", "--connection-timeout", "5", "--max-connections", "100",
        "--max-connections-per-ip", "3", "--connection-memory-bytes", "16384",
        "--max-body-bytes", "2048", "--max-decoded-body-bytes", "4096",
        "--max-event-bytes", "512", "--max-json-depth", "8", "--max-queued-events", "10",
        "--max-unfolded-events", "20", "--report-timeout", "2.5", "--max-db-size", "3",
        "--rate-limit-per-key", "5", "--rate-limit-per-ip", "0.5:3", "--log-level", "debug",
      ]))
    let configuration = options.configuration
    #expect(configuration.serverLimits.threads == 4)
    #expect(configuration.serverLimits.connectionTimeoutSeconds == 5)
    #expect(configuration.serverLimits.connectionLimit == 100)
    #expect(configuration.serverLimits.perIPConnectionLimit == 3)
    #expect(configuration.serverLimits.connectionMemoryBytes == 16384)
    #expect(configuration.serverLimits.maxBodyBytes == 2048)
    #expect(configuration.serverLimits.maxDecodedBodyBytes == 4096)
    #expect(configuration.serverLimits.reportTimeLimitSeconds == 2.5)
    #expect(configuration.ingestLimits.maxEventBytes == 512)
    #expect(configuration.ingestLimits.maxDepth == 8)
    #expect(configuration.writerLimits.maxQueuedEvents == 10)
    #expect(configuration.writerLimits.maxUnfoldedEvents == 20)
    #expect(configuration.writerLimits.maxFileBytes == 3 << 20)
    #expect(configuration.rateLimits.perKey == RateLimiter.Rate(perSecond: 5, burst: 10))
    #expect(configuration.rateLimits.perAddress == RateLimiter.Rate(perSecond: 0.5, burst: 3))
    #expect(options.logLevel == "debug")
  }

  @Test("--trusted-proxy repeats, IPv4 and IPv6; without it X-Forwarded-For is trusted from none")
  func trustedProxies() throws {
    #expect(try #require(try parse([])).configuration.trustedProxies.isEmpty)
    let options = try #require(
      try parse([
        "--trusted-proxy", "127.0.0.1/32", "--trusted-proxy", "10.0.0.0/8", "--trusted-proxy",
        "fd00::/8", "--trusted-proxy", "::1",
      ]))
    #expect(
      options.configuration.trustedProxies.blocks.map(\.description) == [
        "127.0.0.1/32", "10.0.0.0/8", "fd00::/8", "::1/128",
      ])
  }

  @Test("--max-distinct-per-day sets the cap; 0 means the default, as if absent")
  func maxDistinctPerDay() throws {
    let five = try #require(try parse(["--max-distinct-per-day", "5"]))
    #expect(five.configuration.writerLimits.maxDistinctPerDay == 5)
    let most = try #require(try parse(["--max-distinct-per-day", "1000000"]))
    #expect(most.configuration.writerLimits.maxDistinctPerDay == 1_000_000)
    let zero = try #require(
      try parse(["--max-distinct-per-day", "5", "--max-distinct-per-day", "0"]))
    #expect(zero.configuration.writerLimits.maxDistinctPerDay == 1000)
  }

  @Test("numbers below a limit's floor are raised to it")
  func floors() throws {
    let options = try #require(
      try parse([
        "--threads", "0", "--max-json-depth", "1", "--max-queued-events", "0", "--max-db-size", "0",
      ]))
    #expect(options.configuration.serverLimits.threads == 1)
    #expect(options.configuration.ingestLimits.maxDepth == 2)
    #expect(options.configuration.writerLimits.maxQueuedEvents == 1)
    #expect(options.configuration.writerLimits.maxFileBytes == 1 << 20)
  }

  @Test(
    "refused command lines name the flag",
    arguments: [
      (["--db"], "--db needs a value"),
      (["--listen"], "--listen needs a value"),
      (["--nope"], "unknown option --nope"),
      (["--db=a.db"], "unknown option --db=a.db"),
      (["a.db"], "unknown option a.db"),
      (["--threads", "two"], #"--threads needs a whole number, not "two""#),
      (["--max-connections", "-1"], #"--max-connections needs a whole number, not "-1""#),
      (
        ["--rate-limit-per-key", "fast"],
        #"--rate-limit-per-key needs RATE or RATE:BURST, not "fast""#
      ),
      (
        ["--rate-limit-per-ip", "5:0"], #"--rate-limit-per-ip needs RATE or RATE:BURST, not "5:0""#
      ),
      (["--report-timeout", "0"], #"--report-timeout needs a number of seconds, not "0""#),
      (["--report-timeout", "inf"], #"--report-timeout needs a number of seconds, not "inf""#),
      (["--log-level", "verbose"], "--log-level must be debug, info, warning or error"),
      (
        ["--max-distinct-per-day", "1000001"],
        "--max-distinct-per-day must be at most 1000000, not 1000001"
      ),
      (
        ["--max-distinct-per-day", "off"],
        #"--max-distinct-per-day needs a whole number, not "off""#
      ),
      (["--trusted-proxy"], "--trusted-proxy needs a value"),
      (
        ["--trusted-proxy", "10.0.0.0/33"],
        #"--trusted-proxy needs an address or ADDRESS/PREFIX (10.0.0.0/8), not "10.0.0.0/33""#
      ),
      (
        ["--trusted-proxy", "proxy.local"],
        #"--trusted-proxy needs an address or ADDRESS/PREFIX (10.0.0.0/8), not "proxy.local""#
      ),
    ])
  func refused(arguments: [String], message: String) {
    #expect(usageError(arguments) == message)
  }

  @Test("the built uptaked: --help prints the usage, exit 0; a usage error, exit 64")
  func builtProgram() throws {
    let uptaked = try BuiltProgram.path("uptaked")
    let help = try run(uptaked, ["--help"])
    #expect(help.status == 0)
    #expect(help.standardOutput == DaemonOptions.usage + "\n")

    let refused = try run(uptaked, ["--threads", "two"])
    #expect(refused.status == 64)
    #expect(refused.standardOutput == "")
    #expect(
      refused.standardError
        == "uptaked: --threads needs a whole number, not \"two\"\n\n\(DaemonOptions.usage)\n")
  }
}
