import Foundation
import UptakeCluster
import UptakeHTTP
import UptakeStore

/// `uptaked`'s flags, each with its environment variable.
struct DaemonOptions {
  static let usage = """
    usage: uptaked [--db PATH] [--listen HOST:PORT]

    Receives update-prompt events over HTTP, stores them in SQLite, serves reports.

    options:
      --db PATH            SQLite file, created and migrated at start
                           (env UPTAKE_DB, default ./uptake.db)
      --listen HOST:PORT   address to serve; port 0 picks a free port
                           (env UPTAKE_LISTEN, default 127.0.0.1:8080)
      --threads N          HTTP event-loop threads (default 2)
      --connection-timeout SECONDS
                           close idle connections after this (default 30)
      --max-connections N  connections open at once (default 8192)
      --max-connections-per-ip N
                           connections from one address (default 0: no limit)
      --connection-memory-bytes N
                           memory for one connection's headers (default 8192)
      --max-body-bytes N   request body as sent (default 1048576, the contract's)
      --max-decoded-body-bytes N
                           gzip body once inflated (default 8388608)
      --max-event-bytes N  one event's JSON text (default 32768)
      --max-json-depth N   nesting of arrays and objects in a body (default 32)
      --max-queued-events N
                           events waiting for the writer before ingest answers
                           503 (default 100000)
      --max-unfolded-events N
                           events stored but not yet in the report aggregates
                           after which folding keeps pace with ingest
                           (default 1000000)
      --max-distinct-per-day N
                           distinct updateId, appVersion and osVersion values
                           (each) an app may have per UTC day of its events;
                           an event with a new one past it is rejected alone,
                           values already seen that day are still taken
                           (default 1000; 0 means the default; at most
                           1000000; there is no off)
      --rate-limit-per-key RATE[:BURST]
                           requests per second per app key, answering 429
                           beyond it; burst defaults to 2 x RATE (default off)
      --rate-limit-per-ip RATE[:BURST]
                           the same per client address (default off)
      --trusted-proxy CIDR a proxy (an address, or a block like 10.0.0.0/8 or
                           fd00::/8) whose X-Forwarded-For names the client for
                           --rate-limit-per-ip; repeat for more (default none:
                           the header is ignored)
      --report-timeout SECONDS
                           stop a report still reading after this and answer
                           503 (default 30)
      --max-report-rows N  answer 413 rather than a report of more rows (groups;
                           default 100000)
      --max-report-installs N
                           answer 413 rather than hold more distinct installs
                           in one report (a funnel's cohort; default 1000000)
      --max-answer-backlog KIB
                           answer reports 503 while answers of more KiB wait
                           for slow readers (default 131072)
      --max-db-size MIB    refuse writes (503, /readyz 503) before the database
                           file grows past this; the aggregates' file beside
                           it (PATH-rollups) has the same cap (default: none)
      --app-store-lookup-url URL
                           where App Store lookups go, for entries that name
                           their app (appStore): URL/{country}/lookup?id={id}
                           (default https://itunes.apple.com)
      --app-store-refresh SECONDS
                           look each watched country up at least this often;
                           a tenth of it while the configured latestVersion is
                           not live there yet (default 600)
      --app-store-lookups-per-minute N
                           lookups a minute for the whole daemon (default 20,
                           Apple's documented budget)
      --app-store-timeout SECONDS
                           a lookup not answered in this long failed and backs
                           off (default 10)
      --clickhouse URL[,URL...]
                           run as a node over ClickHouse (http://HOST:PORT of
                           one or more of its servers): events are acknowledged
                           once in --db, the node's spool, then shipped to
                           ClickHouse and removed from the spool
                           (env UPTAKE_CLICKHOUSE; default none: one box)
      --clickhouse-database NAME
                           the ClickHouse database, created at start
                           (env UPTAKE_CLICKHOUSE_DATABASE, default uptake)
      --clickhouse-cluster NAME
                           the cluster of the servers' remote_servers whose
                           shards hold the events (env UPTAKE_CLICKHOUSE_CLUSTER;
                           default none: one ClickHouse server)
      --max-spool-bytes N  with --clickhouse, answer ingest 503 once the spool
                           holds this much, as while ClickHouse is away;
                           N in bytes, or with K, M or G (default 4G)
      --log-level LEVEL    debug, info, warning or error (default info)
      -h, --help           show this help
    """

  var configuration = Service.Configuration()
  var logLevel = "info"

  struct UsageError: Error {
    let message: String
  }

  static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError)
    -> DaemonOptions?
  {
    var options = DaemonOptions()
    if let db = environment["UPTAKE_DB"], !db.isEmpty { options.configuration.databasePath = db }
    if let listen = environment["UPTAKE_LISTEN"], !listen.isEmpty {
      options.configuration.listen = listen
    }
    options.configuration.cluster = try clusterValue { () throws(ClusterOptions.Problem) in
      try ClusterOptions(environment: environment)
    }
    // For tests only: hours of grace pass by writing a later time here.
    if let clock = environment["UPTAKE_TEST_CLOCK_FILE"], !clock.isEmpty {
      options.configuration.storeWatch.clockFile = clock
    }
    var remaining = Arguments(remaining: arguments[...])
    while let argument = remaining.next() {
      if argument == "-h" || argument == "--help" { return nil }
      try options.set(argument, from: &remaining)
    }
    return options
  }

  /// A cluster flag's value, its problem said as a usage error.
  private static func clusterValue<T>(_ read: () throws(ClusterOptions.Problem) -> T)
    throws(UsageError) -> T
  {
    do {
      return try read()
    } catch {
      throw UsageError(message: error.description)
    }
  }

  /// Sets what `flag` names, from the values that follow it.
  private mutating func set(_ flag: String, from arguments: inout Arguments) throws(UsageError) {
    switch flag {
    case "--db": configuration.databasePath = try arguments.value(flag)
    case "--listen": configuration.listen = try arguments.value(flag)
    case "--threads": configuration.serverLimits.threads = max(1, try arguments.number(flag))
    case "--connection-timeout":
      configuration.serverLimits.connectionTimeoutSeconds = try arguments.number(flag)
    case "--max-connections":
      configuration.serverLimits.connectionLimit = try arguments.number(flag)
    case "--max-connections-per-ip":
      configuration.serverLimits.perIPConnectionLimit = try arguments.number(flag)
    case "--connection-memory-bytes":
      configuration.serverLimits.connectionMemoryBytes = try arguments.number(flag)
    case "--max-body-bytes":
      configuration.serverLimits.maxBodyBytes = try arguments.number(flag)
    case "--max-decoded-body-bytes":
      configuration.serverLimits.maxDecodedBodyBytes = try arguments.number(flag)
    case "--max-event-bytes":
      configuration.ingestLimits.maxEventBytes = try arguments.number(flag)
    case "--max-json-depth":
      configuration.ingestLimits.maxDepth = max(2, try arguments.number(flag))
    case "--rate-limit-per-key":
      configuration.rateLimits.perKey = try arguments.rate(flag)
    case "--rate-limit-per-ip":
      configuration.rateLimits.perAddress = try arguments.rate(flag)
    case "--trusted-proxy":
      configuration.trustedProxies.blocks.append(try arguments.block(flag))
    case "--report-timeout":
      configuration.serverLimits.reportTimeLimitSeconds = try arguments.seconds(flag)
    case "--max-report-rows":
      configuration.serverLimits.maxReportRows = max(1, try arguments.number(flag))
    case "--max-report-installs":
      configuration.serverLimits.maxReportInstalls = max(1, try arguments.number(flag))
    case "--max-answer-backlog":
      configuration.serverLimits.maxAnswerBacklogBytes = max(1, try arguments.number(flag)) << 10
    case "--max-db-size":
      configuration.writerLimits.maxFileBytes = Int64(max(1, try arguments.number(flag))) << 20
    case "--max-queued-events":
      configuration.writerLimits.maxQueuedEvents = max(1, try arguments.number(flag))
    case "--max-unfolded-events":
      configuration.writerLimits.maxUnfoldedEvents = max(0, try arguments.number(flag))
    case "--max-distinct-per-day":
      let given = try arguments.number(flag)
      guard let limit = EventInserter.maxDistinctPerDay(flag: given) else {
        throw UsageError(
          message: "\(flag) must be at most \(EventInserter.highestMaxDistinctPerDay), not \(given)"
        )
      }
      configuration.writerLimits.maxDistinctPerDay = limit
    case "--app-store-lookup-url":
      let url = try arguments.value(flag)
      guard url.hasPrefix("https://") || url.hasPrefix("http://"), URL(string: url) != nil else {
        throw UsageError(message: "\(flag) needs an http:// or https:// URL, not \"\(url)\"")
      }
      configuration.storeWatch.lookupBase = url
    case "--app-store-refresh":
      configuration.storeWatch.refreshSeconds = max(1, try arguments.number(flag))
    case "--app-store-lookups-per-minute":
      configuration.storeWatch.lookupsPerMinute = max(1, try arguments.number(flag))
    case "--app-store-timeout":
      configuration.storeWatch.timeoutSeconds = Double(max(1, try arguments.number(flag)))
    case "--clickhouse", "--clickhouse-database", "--clickhouse-cluster":
      let value = try arguments.value(flag)
      try Self.clusterValue { () throws(ClusterOptions.Problem) in
        try configuration.cluster.set(flag, to: value)
      }
    case "--max-spool-bytes":
      configuration.maxSpoolBytes = try arguments.bytes(flag)
    case "--log-level":
      logLevel = try arguments.value(flag)
      guard ["debug", "info", "warning", "error"].contains(logLevel) else {
        throw UsageError(message: "--log-level must be debug, info, warning or error")
      }
    default:
      throw UsageError(message: "unknown option \(flag)")
    }
  }

  /// The arguments not read yet; a flag's value is read as the flag needs it.
  private struct Arguments {
    var remaining: ArraySlice<String>

    mutating func next() -> String? { remaining.popFirst() }

    mutating func value(_ flag: String) throws(UsageError) -> String {
      guard let next = remaining.popFirst() else {
        throw UsageError(message: "\(flag) needs a value")
      }
      return next
    }

    mutating func number(_ flag: String) throws(UsageError) -> Int {
      let text = try value(flag)
      guard let number = Int(text), number >= 0 else {
        throw UsageError(message: "\(flag) needs a whole number, not \"\(text)\"")
      }
      return number
    }

    /// A size: a whole number of bytes, or of KiB, MiB or GiB with a
    /// suffix K, M or G.
    mutating func bytes(_ flag: String) throws(UsageError) -> Int64 {
      let text = try value(flag)
      let shifts: [Character: Int64] = ["K": 10, "M": 20, "G": 30]
      let shift = text.last.flatMap { shifts[Character($0.uppercased())] } ?? 0
      let digits = shift == 0 ? Substring(text) : text.dropLast()
      guard let number = Int64(digits), number > 0, number <= (Int64.max >> shift) else {
        throw UsageError(
          message: "\(flag) needs a number of bytes, or of K, M or G bytes (4G), not \"\(text)\"")
      }
      return number << shift
    }

    mutating func rate(_ flag: String) throws(UsageError) -> RateLimiter.Rate {
      let text = try value(flag)
      guard let rate = RateLimiter.Rate(text) else {
        throw UsageError(message: "\(flag) needs RATE or RATE:BURST, not \"\(text)\"")
      }
      return rate
    }

    mutating func block(_ flag: String) throws(UsageError) -> CIDRBlock {
      let text = try value(flag)
      guard let block = CIDRBlock(text) else {
        throw UsageError(
          message: "\(flag) needs an address or ADDRESS/PREFIX (10.0.0.0/8), not \"\(text)\"")
      }
      return block
    }

    mutating func seconds(_ flag: String) throws(UsageError) -> Double {
      let text = try value(flag)
      guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
        throw UsageError(message: "\(flag) needs a number of seconds, not \"\(text)\"")
      }
      return seconds
    }
  }
}
