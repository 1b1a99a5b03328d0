import Foundation
import UptakeHTTP

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
      --rate-limit-per-key RATE[:BURST]
                           requests per second per app key, answering 429
                           beyond it; burst defaults to 2 x RATE (default off)
      --rate-limit-per-ip RATE[:BURST]
                           the same per client address (default off)
      --report-timeout SECONDS
                           stop a report still reading after this and answer
                           503 (default 30)
      --max-db-size MIB    refuse writes (503, /readyz 503) before the database
                           file grows past this; the aggregates' file beside
                           it (PATH-rollups) has the same cap (default: none)
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
    var remaining = arguments[...]
    func value(_ flag: String) throws(UsageError) -> String {
      guard let next = remaining.popFirst() else {
        throw UsageError(message: "\(flag) needs a value")
      }
      return next
    }
    func number(_ flag: String) throws(UsageError) -> Int {
      let text = try value(flag)
      guard let number = Int(text), number >= 0 else {
        throw UsageError(message: "\(flag) needs a whole number, not \"\(text)\"")
      }
      return number
    }
    func rate(_ flag: String) throws(UsageError) -> RateLimiter.Rate {
      let text = try value(flag)
      guard let rate = RateLimiter.Rate(text) else {
        throw UsageError(message: "\(flag) needs RATE or RATE:BURST, not \"\(text)\"")
      }
      return rate
    }
    while let argument = remaining.popFirst() {
      switch argument {
      case "-h", "--help": return nil
      case "--db": options.configuration.databasePath = try value(argument)
      case "--listen": options.configuration.listen = try value(argument)
      case "--threads": options.configuration.serverLimits.threads = max(1, try number(argument))
      case "--connection-timeout":
        options.configuration.serverLimits.connectionTimeoutSeconds = try number(argument)
      case "--max-connections":
        options.configuration.serverLimits.connectionLimit = try number(argument)
      case "--max-connections-per-ip":
        options.configuration.serverLimits.perIPConnectionLimit = try number(argument)
      case "--connection-memory-bytes":
        options.configuration.serverLimits.connectionMemoryBytes = try number(argument)
      case "--max-body-bytes":
        options.configuration.serverLimits.maxBodyBytes = try number(argument)
      case "--max-decoded-body-bytes":
        options.configuration.serverLimits.maxDecodedBodyBytes = try number(argument)
      case "--max-event-bytes":
        options.configuration.ingestLimits.maxEventBytes = try number(argument)
      case "--max-json-depth":
        options.configuration.ingestLimits.maxDepth = max(2, try number(argument))
      case "--rate-limit-per-key":
        options.configuration.rateLimits.perKey = try rate(argument)
      case "--rate-limit-per-ip":
        options.configuration.rateLimits.perAddress = try rate(argument)
      case "--report-timeout":
        let text = try value(argument)
        guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
          throw UsageError(message: "--report-timeout needs a number of seconds, not \"\(text)\"")
        }
        options.configuration.serverLimits.reportTimeLimitSeconds = seconds
      case "--max-db-size":
        options.configuration.writerLimits.maxFileBytes = Int64(max(1, try number(argument))) << 20
      case "--max-queued-events":
        options.configuration.writerLimits.maxQueuedEvents = max(1, try number(argument))
      case "--max-unfolded-events":
        options.configuration.writerLimits.maxUnfoldedEvents = max(0, try number(argument))
      case "--log-level":
        options.logLevel = try value(argument)
        guard ["debug", "info", "warning", "error"].contains(options.logLevel) else {
          throw UsageError(message: "--log-level must be debug, info, warning or error")
        }
      default:
        throw UsageError(message: "unknown option \(argument)")
      }
    }
    return options
  }
}
