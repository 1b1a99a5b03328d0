import Foundation
import UptakeCluster
import UptakeCore
import UptakeStore

/// The whole daemon, wired: the store, the batch writer thread, the router
/// and the HTTP server. `uptaked` parses flags and signals; this does the rest.
public final class Service: @unchecked Sendable {
  public struct Configuration: Sendable {
    public var databasePath = "./uptake.db"
    public var listen = "127.0.0.1:8080"
    public var serverLimits = ServerLimits()
    public var writerLimits = BatchWriter.Limits()
    public var ingestLimits = IngestLimits()
    public var rateLimits = RateLimits()
    /// Proxies whose X-Forwarded-For names the client; none by default,
    /// and then the header is ignored.
    public var trustedProxies = TrustedProxies()
    /// Read connections for reports: one per server thread keeps reports
    /// from waiting on each other.
    public var readConnections = 4
    /// How the App Store is watched for entries that name their app.
    public var storeWatch = StoreWatchOptions()
    /// Where the ClickHouse cluster is, when this daemon is a node over one.
    public var cluster = ClusterOptions()
    /// As a node, the spool's size at which ingest answers 503: 4 GiB,
    /// hours of a busy app's events while the cluster is away.
    public var maxSpoolBytes: Int64 = 4 << 30

    public init() {}
  }

  public let configuration: Configuration
  public let server: HTTPServer
  public let writer: BatchWriter
  public let metrics = IngestMetrics()
  /// The App Store lookups of the entries that name their app.
  let storeWatcher: AppStoreWatcher
  /// The update configurations the checks answer from, reloaded as they change.
  let updateConfigurations: UpdateConfigDirectory<CheckAnswers>
  /// Keys of the default app when this start created it, to show once.
  public let createdDefaultApp: NewAppKeys?
  private let configPollerDone = DispatchSemaphore(value: 0)
  /// As a node over a cluster, what ships the spool to it.
  let shipping: ShippingThread?
  /// As a node, what keeps the reports' rows remembered ahead of requests.
  let reportWarmer: ReportWarmer?

  /// Opens (creating and migrating) the database and builds every part.
  public init(configuration: Configuration, logger: Logger = Logger()) throws {
    self.configuration = configuration
    let path = configuration.databasePath
    let writeConnection = try Database(path: path)
    try Migrator.migrate(writeConnection)
    switch writeConnection.rollupsPlacement {
    case .moved:
      logger.info(
        "report aggregates moved to their own file", ["file": Database.rollupsPath(for: path)])
    case .rebuilt(let reason):
      logger.warning(
        "report aggregates rebuilt from the events",
        ["file": Database.rollupsPath(for: path), "reason": reason])
    case .ready, .created, nil:
      break
    }
    let layout = configuration.cluster.layout()
    if let layout {
      Self.joinCluster(layout, spool: writeConnection, logger: logger)
    }
    createdDefaultApp = try AppRegistry.addDefaultIfEmpty(
      in: writeConnection, nowMs: WallClock.nowMs())
    let keys = try KeyDirectory(database: try Database(path: path, create: false))
    updateConfigurations = try UpdateConfigDirectory(
      database: try Database(path: path, create: false), logger: logger,
      compile: CheckAnswers.compile)
    let readGate = ReadGate()
    let pool = try ConnectionPool(
      path: path, size: configuration.readConnections, gate: readGate)
    var writerLimits = configuration.writerLimits
    if writerLimits.maxReadHoldSeconds == nil {
      writerLimits.maxReadHoldSeconds = configuration.serverLimits.reportTimeLimitSeconds + 5
    }
    if let layout {
      // The events file is a spool: full, it refuses commits as a full
      // disk does, and ingest answers 503 until shipping frees pages.
      writerLimits.folds = false
      writerLimits.maxFileBytes = min(
        writerLimits.maxFileBytes ?? .max, configuration.maxSpoolBytes)
      shipping = try ShippingThread(spoolPath: path, layout: layout, logger: logger)
    } else {
      shipping = nil
    }
    writer = try BatchWriter(
      database: writeConnection, limits: writerLimits, readGate: readGate,
      gate: shipping?.backlog, observer: metrics.writerObserver(logger: logger))

    let clock: @Sendable () -> Int64 = { WallClock.nowMs() }
    let ingest = IngestHandler(
      writer: writer, decoder: EventBatchDecoder(limits: configuration.ingestLimits),
      metrics: metrics, clock: clock,
      maxDecodedBodyBytes: configuration.serverLimits.maxDecodedBodyBytes)
    var reports = ReportHandlers(
      pool: pool, clock: clock,
      workers: ReportWorkers(concurrency: configuration.readConnections), logger: logger,
      timeLimitSeconds: configuration.serverLimits.reportTimeLimitSeconds,
      maxRows: configuration.serverLimits.maxReportRows,
      maxInstalls: configuration.serverLimits.maxReportInstalls,
      maxAnswerBacklogBytes: configuration.serverLimits.maxAnswerBacklogBytes)
    if writerLimits.folds {
      // Only a fold catching up on more than the writer ever leaves (a
      // refold after a migration, or a fold that fails) goes past it.
      reports.maxUnfoldedEvents =
        writerLimits.maxUnfoldedEventsOfAllApps + writerLimits.maxEventsPerTransaction
    }
    reports.cluster = layout.map {
      ClusterReports(layout: $0, maxRows: configuration.serverLimits.maxReportRows)
    }
    reportWarmer = reports.cluster.map { [path] in
      ReportWarmer(
        reports: $0,
        apps: {
          guard let database = try? Database(path: path, create: false),
            let apps = try? AppRegistry.list(in: database)
          else { return [] }
          return apps.map(\.appId)
        }, logger: logger)
    }
    let configurations = updateConfigurations
    storeWatcher = try AppStoreWatcher(
      options: configuration.storeWatch, logger: logger,
      records: try Database(path: path, create: false, rollups: false)
    ) { AppStoreWatcher.targets(of: configurations.allCompiled().values) }
    let serverBox = ServerBox()
    let clusterReports = reports.cluster
    let operations = OperationsHandlers(
      writer: writer, metrics: metrics, storeMetrics: storeWatcher.exposition,
      shipping: shipping.map { [writer] in
        ShippingReport(
          thread: $0, maxSpoolBytes: writerLimits.maxFileBytes,
          committedSeq: { writer.committedSeq },
          reportGroups: { clusterReports?.rememberedGroups ?? (0, 0) })
      },
      isShuttingDown: { serverBox.server?.isShuttingDown ?? false }, databasePath: path)
    let checks = CheckHandlers(configurations: updateConfigurations, store: storeWatcher)
    let store = StoreHandlers(configurations: updateConfigurations, watcher: storeWatcher)
    // The dashboard's routes last: every API request finds its route
    // before trying them.
    let dashboard = DashboardHandlers(assets: .embedded)
    let router = Router(
      routes: [ingest.route] + checks.routes + reports.routes + store.routes + operations.routes
        + dashboard.routes,
      keys: keys)
    let metrics = self.metrics
    server = HTTPServer(
      router: router, limits: configuration.serverLimits, rateLimits: configuration.rateLimits,
      trustedProxies: configuration.trustedProxies,
      spillDirectory: URL(fileURLWithPath: path).deletingLastPathComponent().path, logger: logger
    ) { request in
      metrics.requestCompleted(request, logger: logger)
    }
    serverBox.server = server
  }

  /// A node's first contact with its cluster, before it opens: the schema,
  /// then the cluster's apps and update configurations into the node's
  /// tables, so a node joining a cluster takes its keys and configurations
  /// and makes no default app of its own. When
  /// the cluster cannot be reached the node starts all the same (ingest
  /// goes to the spool), and its shipping thread does both once it can.
  private static func joinCluster(_ layout: ClusterLayout, spool: Database, logger: Logger) {
    let impatient = ClusterLayout(
      servers: layout.servers.map { ClickHouseServer(url: $0.url, timeoutSeconds: 5) },
      database: layout.database, cluster: layout.cluster)
    do {
      try ClusterSchema.migrate(impatient, nowMs: WallClock.nowMs())
      let apps = try ClusterAppsMirror.sync(impatient, into: spool, nowMs: WallClock.nowMs())
      let configurations = try ClusterUpdateConfigsMirror.sync(
        impatient, into: spool, nowMs: WallClock.nowMs())
      logger.info(
        "joined the cluster",
        [
          "apps_taken": String(apps.mirrored),
          "configurations_taken": String(configurations.mirrored),
        ])
    } catch {
      logger.warning(
        "cannot reach the cluster at start; starting on the node's own apps",
        ["error": String(describing: error)])
    }
    for server in impatient.servers { server.close() }
  }

  /// Starts the writer thread, the configuration poller and the HTTP server.
  public func start() throws {
    let configurations = updateConfigurations
    _ = Self.startThread("uptake-config", signalling: configPollerDone) { configurations.run() }
    writer.start()
    shipping?.start()
    reportWarmer?.start()
    storeWatcher.start()
    try server.start(listen: configuration.listen)
  }

  /// Runs `body` on a new thread named `name`, then signals `done`.
  private static func startThread(
    _ name: String, signalling done: DispatchSemaphore, _ body: @escaping @Sendable () -> Void
  ) -> Thread {
    let thread = Thread {
      body()
      done.signal()
    }
    thread.name = name
    thread.start()
    return thread
  }

  /// The orderly stop, in reverse order of start: answer new requests with
  /// 503 while those in flight finish, stop listening, then let the writer
  /// commit the last batches and exit.
  public func shutdown(drainSeconds: Double = 10) {
    server.refuseNewRequests()
    server.drain(timeoutSeconds: drainSeconds)
    server.stopListening()
    // Connections accepted in the instant before the socket closed still get
    // their 503.
    server.drain(timeoutSeconds: 1, quietSeconds: 0.1)
    server.stop()
    writer.stop()
    reportWarmer?.stop()
    shipping?.stop()
    storeWatcher.stop()
    updateConfigurations.stop()
    configPollerDone.wait()
  }
}

/// Lets a handler built before the server ask the server for its state.
private final class ServerBox: @unchecked Sendable {
  var server: HTTPServer?
}
