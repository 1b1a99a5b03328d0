import Foundation
import UptakeCore
import UptakeStore

/// A node's link to its cluster, on a thread of its own: it creates or
/// migrates the cluster's schema, then ships the spool's committed events
/// (`EventShipper`) as they come, and trims what was shipped. When the
/// cluster cannot be reached it tries again, waiting longer each time up
/// to `maxRetrySeconds`; events wait in the spool meanwhile, and ingest
/// goes on until the spool is full (`--max-spool-bytes`).
public final class ShippingThread: @unchecked Sendable {
  /// What the thread has done and is doing, for `/readyz` and `/metrics`.
  public struct Status: Sendable {
    /// Whether the schema has been created or migrated on every server.
    public var schemaReady = false
    /// Why the last attempt failed, and since when attempts have failed;
    /// nil while they work.
    public var failure: String?
    public var failingSinceMs: Int64?
    /// Events shipped and failed attempts since the daemon started.
    public var shippedEvents: Int64 = 0
    public var failedAttempts: Int64 = 0
    /// The seq of the last event shipped.
    public var shippedSeq: Int64 = 0
    /// When the oldest event not shipped yet was received, as of the
    /// thread's last look (nil when none waited).
    public var oldestWaitingReceivedMs: Int64?

    /// The events not shipped yet, counted from the seq of the newest
    /// committed (`BatchWriter.committedSeq`): seq is the rowid the
    /// inserts append, one an event.
    public func waitingEvents(committedSeq: Int64) -> Int64 {
      max(0, committedSeq - shippedSeq)
    }
    /// Bytes of the spool's events file in use: what `--max-spool-bytes`
    /// caps (its write-ahead log, up to 16 MiB, comes beside it).
    public var spoolBytes: Int64 = 0
  }

  /// How long shipping waits with nothing to ship before looking again: the
  /// lag of an event under light load.
  public static let pollSeconds = 0.25
  /// The first pause after a failure, doubled each time up to the last.
  static let firstRetrySeconds = 0.5
  static let maxRetrySeconds = 10.0
  /// With nothing to ship for this long, every server is asked `SELECT 1`,
  /// so /readyz and /metrics say when the cluster is away before events
  /// wait on it.
  static let probeSeconds = 5.0
  /// How often the cluster's apps and update configurations are read into
  /// the node's own tables (`ClusterAppsMirror`,
  /// `ClusterUpdateConfigsMirror`): a key rotated or a configuration put
  /// anywhere takes effect here within this and the reload of what
  /// answers from memory.
  static let syncSeconds = 2.0

  private let layout: ClusterLayout
  private let spool: Database
  private let shipper: EventShipper
  private let logger: Logger
  /// What the node's writer waits on under a flood.
  public let backlog: ShippingBacklog
  private let loop = BackgroundLoop(name: "uptake-shipping")
  private let condition = NSCondition()
  // Guarded by `condition`:
  private var status = Status()
  /// Only the shipping thread touches this: when a server last answered.
  private var lastContact = Date()
  /// Only the shipping thread touches this: when apps and configurations
  /// were last synced.
  private var lastSync = Date.distantPast

  /// Why a database cannot be a node's spool.
  public struct NotASpool: Error, CustomStringConvertible {
    public let description: String
  }

  /// Opens a connection of its own to the spool at `spoolPath` (created
  /// and migrated already). A database that holds events and has never
  /// been a spool is refused: it is a one-box database, whose events the
  /// node would ship and then delete from it.
  public init(spoolPath: String, layout: ClusterLayout, logger: Logger) throws {
    spool = try Database(path: spoolPath, create: false, rollups: false)
    // A spool after an outage may hold millions of events: it is not
    // counted, only a one-box database is.
    if try spool.scalarInt("SELECT count(*) FROM cluster_spool") == 0,
      let events = try spool.scalarInt("SELECT count(*) FROM events"), events > 0
    {
      throw NotASpool(
        description:
          "\(spoolPath) holds the events of a one-box uptaked (\(events)); as a node's --db it would"
          + " be emptied as it ships: start the node on a new file, and keep this one as it is")
    }
    shipper = try EventShipper(spool: spool, layout: layout)
    self.layout = layout
    self.logger = logger
    status.spoolBytes = try Self.spoolBytes(spool)
    status.shippedSeq = try shipper.shippedSeq()
    backlog = ShippingBacklog(shippedSeq: status.shippedSeq)
    status.oldestWaitingReceivedMs = try shipper.oldestWaitingReceivedMs()
  }

  /// A copy of the current status.
  public var current: Status {
    condition.lock()
    defer { condition.unlock() }
    return status
  }

  public func start() {
    loop.start { [self] in run() }
  }

  /// Ends the thread after the block under way, and waits for it. What is
  /// not shipped yet stays in the spool for the next start.
  public func stop() {
    loop.stop()
    for server in layout.servers { server.close() }
  }

  private func run() {
    var retrySeconds = Self.firstRetrySeconds
    while !loop.isStopping {
      let attempt = step()
      refreshSpoolFigures()
      switch attempt {
      case .shipped:
        retrySeconds = Self.firstRetrySeconds
      case .idle:
        retrySeconds = Self.firstRetrySeconds
        loop.wait(seconds: Self.pollSeconds)
      case .failed:
        // The spool's figures stay fresh while the retries wait longer.
        var waited = 0.0
        while waited < retrySeconds && !loop.isStopping {
          loop.wait(seconds: min(1, retrySeconds - waited))
          waited += 1
          refreshSpoolFigures()
        }
        retrySeconds = min(Self.maxRetrySeconds, retrySeconds * 2)
      }
    }
  }

  private enum Attempt {
    case shipped, idle, failed
  }

  /// The schema if it is not ready, then one block and the trim after it.
  private func step() -> Attempt {
    do {
      if !current.schemaReady {
        let ran = try ClusterSchema.migrate(layout, nowMs: WallClock.nowMs())
        logger.info(
          "cluster schema ready",
          ["servers": String(layout.servers.count), "migrations_run": String(ran)])
        update { $0.schemaReady = true }
      }
      if Date().timeIntervalSince(lastSync) >= Self.syncSeconds {
        try syncAppsAndConfigurations()
        lastSync = Date()
      }
      let shipped = try shipper.shipNextBlock()
      if shipped > 0 {
        lastContact = Date()
      } else if Date().timeIntervalSince(lastContact) >= Self.probeSeconds {
        try ClusterSchema.probe(layout)
        lastContact = Date()
      }
      let shippedSeq = try shipper.shippedSeq()
      update { $0.shippedSeq = shippedSeq }
      backlog.shipped(through: shippedSeq)
      while try shipper.trimShipped() > 0 {}
      succeeded(shipped: shipped)
      return shipped > 0 ? .shipped : .idle
    } catch {
      failed(String(describing: error))
      return .failed
    }
  }

  /// The cluster's apps, then its update configurations, into the node's
  /// own tables; logged when something changed.
  private func syncAppsAndConfigurations() throws {
    let apps = try ClusterAppsMirror.sync(layout, into: spool, nowMs: WallClock.nowMs())
    let configurations = try ClusterUpdateConfigsMirror.sync(
      layout, into: spool, nowMs: WallClock.nowMs())
    if apps != MirrorOutcome() || configurations != MirrorOutcome() {
      logger.info(
        "synced with the cluster",
        [
          "apps_taken": String(apps.mirrored), "apps_published": String(apps.published),
          "configurations_taken": String(configurations.mirrored),
          "configurations_published": String(configurations.published),
        ])
    }
  }

  private func succeeded(shipped: Int) {
    let recovered = update { status -> Bool in
      status.shippedEvents += Int64(shipped)
      defer { (status.failure, status.failingSinceMs) = (nil, nil) }
      return status.failure != nil
    }
    if recovered { logger.info("shipping to the cluster again") }
  }

  private func failed(_ message: String) {
    backlog.unreachable()
    let first = update { status -> Bool in
      status.failedAttempts += 1
      defer { status.failure = message }
      guard status.failure == nil else { return false }
      status.failingSinceMs = WallClock.nowMs()
      return true
    }
    // Once when it starts failing, not at every retry.
    if first {
      logger.warning("cannot ship to the cluster; events wait in the spool", ["error": message])
    }
  }

  private func refreshSpoolFigures() {
    do {
      let oldest = try shipper.oldestWaitingReceivedMs()
      let bytes = try Self.spoolBytes(spool)
      update {
        $0.oldestWaitingReceivedMs = oldest
        $0.spoolBytes = bytes
      }
    } catch {
      logger.warning("cannot read the spool's size", ["error": error.description])
    }
  }

  /// The events file's pages in use, those in its log included: what
  /// the writer's `max_page_count` caps, since freed pages are reused.
  private static func spoolBytes(_ spool: Database) throws(StoreError) -> Int64 {
    try spool.read { () throws(StoreError) -> Int64 in
      let pageSize = try spool.scalarInt("PRAGMA main.page_size") ?? 4096
      let pages = try spool.scalarInt("PRAGMA main.page_count") ?? 0
      let free = try spool.scalarInt("PRAGMA main.freelist_count") ?? 0
      return (pages - free) * pageSize
    }
  }

  @discardableResult
  private func update<T>(_ change: (inout Status) -> T) -> T {
    condition.lock()
    defer { condition.unlock() }
    return change(&status)
  }
}
