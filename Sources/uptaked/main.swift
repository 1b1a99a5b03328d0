import CMalloc
import Foundation
import UptakeCore
import UptakeHTTP

// Signals are taken by this thread alone, with sigwait, so they arrive as an
// ordinary call here rather than interrupting a handler or the writer.
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGTERM)
sigaddset(&stopSignals, SIGINT)
pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
// A client that disconnects mid-response must not kill the daemon.
signal(SIGPIPE, SIG_IGN)
// A fold step's arrays (its events, the presence sightings: tens of MB in
// a flood) get mappings of their own, returned when the step ends. Past
// glibc's first large free its threshold rises to 32 MiB, and they came
// from the fold thread's arena instead, whose freed space stayed resident
// between the steps and raised the daemon's peak (docs/performance.md).
_ = uptake_map_blocks_from(1 << 20)

func fail(_ message: String, code: Int32) -> Never {
  FileHandle.standardError.write(Data("uptaked: \(message)\n".utf8))
  exit(code)
}

let options: DaemonOptions
do {
  guard
    let parsed = try DaemonOptions.parse(
      Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
  else {
    print(DaemonOptions.usage)
    exit(0)
  }
  options = parsed
} catch {
  FileHandle.standardError.write(Data("uptaked: \(error.message)\n\n\(DaemonOptions.usage)\n".utf8))
  exit(64)
}

let logLevel: Logger.Level =
  ["debug": .debug, "warning": .warning, "error": .error][options.logLevel] ?? .info
let logger = Logger(minimumLevel: logLevel)

// Every connection is a descriptor; the usual soft limit of 1024 would cap
// connections far below --max-connections.
var descriptorLimit = rlimit()
if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &descriptorLimit) == 0
  && descriptorLimit.rlim_cur < descriptorLimit.rlim_max
{
  descriptorLimit.rlim_cur = descriptorLimit.rlim_max
  setrlimit(Int32(RLIMIT_NOFILE.rawValue), &descriptorLimit)
}

let service: Service
do {
  service = try Service(configuration: options.configuration, logger: logger)
} catch {
  fail("cannot open database \(options.configuration.databasePath): \(error)", code: 66)
}
do {
  try service.start()
} catch {
  fail("\(error)", code: 69)
}

let host =
  service.server.boundHost.contains(":")
  ? "[\(service.server.boundHost)]" : service.server.boundHost
var banner = "listening on http://\(host):\(service.server.boundPort)\n"
if let keys = service.createdDefaultApp {
  banner += "created app \(keys.appId); its keys are shown only this once\n"
  banner += "ingest key: \(keys.ingestKey)\n"
  banner += "read key: \(keys.readKey)\n"
}
// Written unbuffered: whoever started the daemon waits for this line.
FileHandle.standardOutput.write(Data(banner.utf8))
logger.info(
  "started", ["db": options.configuration.databasePath, "port": String(service.server.boundPort)])

var received: Int32 = 0
sigwait(&stopSignals, &received)
logger.info("stopping", ["signal": received == SIGTERM ? "TERM" : "INT"])
service.shutdown()
logger.info("stopped")
exit(0)
