import Foundation
import UptakeCore
import UptakeStore

/// Moves a one-box database into a cluster (`uptake migrate-to-clickhouse`):
/// its apps with the keys their clients hold, every version of their update
/// configurations, then every event once, in seq order, a block at a time.
///
/// Restartable: before a block is inserted the cluster records its last seq
/// as in flight, and after, as shipped (`MigrationProgress`). A run that
/// finds a block in flight (its predecessor was killed) waits until the
/// killed insert has ended on every server, asks the cluster which of the
/// block's events it holds, and ships only the others: every event lands
/// once, as a row of its own, not a duplicate for merges to fold.
public final class OneBoxMigration {
  /// What a run did.
  public struct Outcome: Sendable, Equatable {
    public var appsAdded = 0
    public var appsAlreadyThere = 0
    public var appsKeysReplaced = 0
    public var configurationsAdded = 0
    public var configurationsAlreadyThere = 0
    /// Events this run inserted.
    public var eventsShipped: Int64 = 0
    /// Events of a killed run's block in flight that had reached the
    /// cluster, so were not shipped again.
    public var eventsFoundInCluster: Int64 = 0
    /// The source's events, all of them now in the cluster.
    public var eventsTotal: Int64 = 0
  }

  /// Why a run stopped.
  public enum Failure: Error, CustomStringConvertible {
    /// The cluster holds an app or a configuration version that differs.
    case conflict(String)
    case source(StoreError)
    case cluster(String)

    public var description: String {
      switch self {
      case .conflict(let message), .cluster(let message): message
      case .source(let error): "the one-box database: \(error)"
      }
    }
  }

  /// How long a run waits for the insert of a killed run to end: a block
  /// of 50,000 events takes a second or two; a server under load, longer.
  static let earlierInsertWaitSeconds = 120.0

  private let source: OneBoxSource
  private let layout: ClusterLayout
  private let blockEvents: Int
  private let replacingKeys: Bool

  /// `layout`'s schema must be made (`ClusterSchema.migrate`).
  public init(
    source: OneBoxSource, layout: ClusterLayout, blockEvents: Int = 50_000,
    replacingKeys: Bool = false
  ) {
    self.source = source
    self.layout = layout
    self.blockEvents = max(1, blockEvents)
    self.replacingKeys = replacingKeys
  }

  /// Copies apps, configurations and events; `progress` hears after each
  /// block how many of the source's events are in the cluster, of all.
  public func run(progress: (_ done: Int64, _ total: Int64) -> Void) throws(Failure) -> Outcome {
    var outcome = Outcome()
    let apps: [OneBoxSource.App]
    do {
      apps = try source.apps()
    } catch {
      throw .source(error)
    }
    try copy(apps, &outcome)
    try copyConfigurations(of: apps, &outcome)
    try shipEvents(&outcome, progress: progress)
    return outcome
  }

  // MARK: - Apps and configurations

  private func copy(_ apps: [OneBoxSource.App], _ outcome: inout Outcome) throws(Failure) {
    for app in apps {
      let adoption: ClusterAppAdmin.Adoption
      do {
        adoption = try ClusterAppAdmin.adopt(
          app.appId, ingestKeyHash: app.ingestKeyHash, readKeyHash: app.readKeyHash,
          createdMs: app.createdMs, replacingKeys: replacingKeys, in: layout,
          nowMs: WallClock.nowMs())
      } catch {
        if case .conflict(let message) = error { throw .conflict(message) }
        throw .cluster(error.description)
      }
      switch adoption {
      case .added: outcome.appsAdded += 1
      case .alreadyThere: outcome.appsAlreadyThere += 1
      case .keysReplaced: outcome.appsKeysReplaced += 1
      }
    }
  }

  /// Every version the cluster lacks is written; a version it holds with
  /// another document is a conflict, since a node serves the cluster's.
  private func copyConfigurations(of apps: [OneBoxSource.App], _ outcome: inout Outcome)
    throws(Failure)
  {
    var held: [String: String] = [:]
    do {
      for record in try ClusterUpdateConfigs.read(layout, after: [:]) {
        held["\(record.appId)/\(record.version)"] = record.document
      }
    } catch {
      throw .cluster(error.description)
    }
    var missing: [ClusterUpdateConfigs.Record] = []
    for app in apps {
      let versions: [ClusterUpdateConfigs.Record]
      do {
        versions = try source.configurations(of: app)
      } catch {
        throw .source(error)
      }
      for record in versions {
        switch held["\(record.appId)/\(record.version)"] {
        case nil: missing.append(record)
        case record.document: outcome.configurationsAlreadyThere += 1
        default:
          throw .conflict(
            "app \"\(record.appId)\" has another configuration version \(record.version) in the"
              + " cluster; see uptake updates history --clickhouse ...")
        }
      }
    }
    do {
      try ClusterUpdateConfigs.publish(missing, to: layout, nowMs: WallClock.nowMs())
    } catch {
      throw .cluster(error.description)
    }
    outcome.configurationsAdded = missing.count
  }

  // MARK: - Events

  private func shipEvents(_ outcome: inout Outcome, progress: (Int64, Int64) -> Void)
    throws(Failure)
  {
    try waitForEarlierInserts()
    var recorded = try readProgress()
    let (pending, shippedBefore) = try countEvents(after: recorded.shippedSeq)
    outcome.eventsTotal = pending + shippedBefore
    var done = shippedBefore
    progress(done, outcome.eventsTotal)
    if recorded.mayHaveBlockInFlight {
      var seq = recorded.shippedSeq
      while seq < recorded.inFlightSeq {
        let block = try readBlock(after: seq, through: recorded.inFlightSeq)
        guard block.count > 0 else { break }
        let present: Set<EventBlock.Key>
        do {
          present = try block.inCluster(layout)
        } catch {
          throw .cluster(error.description)
        }
        let missing = block.leavingOut(present)
        try insert(missing)
        outcome.eventsFoundInCluster += Int64(present.count)
        outcome.eventsShipped += Int64(missing.count)
        done += Int64(block.count)
        progress(done, outcome.eventsTotal)
        seq = block.lastSeq
      }
      recorded = MigrationProgress(
        shippedSeq: recorded.inFlightSeq, inFlightSeq: recorded.inFlightSeq)
      try record(recorded)
    }
    while true {
      let block = try readBlock(after: recorded.shippedSeq, through: .max)
      guard block.count > 0 else { break }
      try record(MigrationProgress(shippedSeq: recorded.shippedSeq, inFlightSeq: block.lastSeq))
      try insert(block)
      recorded = MigrationProgress(shippedSeq: block.lastSeq, inFlightSeq: block.lastSeq)
      try record(recorded)
      outcome.eventsShipped += Int64(block.count)
      done += Int64(block.count)
      progress(done, max(done, outcome.eventsTotal))
    }
    // Events the one box took while this ran are shipped too.
    outcome.eventsTotal = max(done, outcome.eventsTotal)
  }

  /// Events after `seq` and up to it.
  private func countEvents(after seq: Int64) throws(Failure) -> (after: Int64, upTo: Int64) {
    do {
      let after = try source.eventCount(after: seq)
      return (after, try source.eventCount(after: 0) - after)
    } catch {
      throw .source(error)
    }
  }

  private func readBlock(after seq: Int64, through last: Int64) throws(Failure) -> EventBlock {
    do {
      return try EventBlock.read(
        from: source.database, after: seq, through: last, limit: blockEvents,
        unnamedPrefix: source.sourceId)
    } catch {
      throw .source(error)
    }
  }

  /// The insert is named by the source and the block's last seq, so a
  /// later run can see it while it still runs on a server.
  private func insert(_ block: EventBlock) throws(Failure) {
    do {
      try block.insert(into: layout, queryId: "\(queryIdPrefix)\(block.lastSeq)")
    } catch {
      throw .cluster(error.description)
    }
  }

  private var queryIdPrefix: String { "uptake-migrate-\(source.sourceId)-" }

  private func readProgress() throws(Failure) -> MigrationProgress {
    do {
      return try MigrationProgress.read(sourceId: source.sourceId, in: layout)
    } catch {
      throw .cluster(error.description)
    }
  }

  private func record(_ progress: MigrationProgress) throws(Failure) {
    do {
      try progress.write(sourceId: source.sourceId, sourcePath: source.database.path, to: layout)
    } catch {
      throw .cluster(error.description)
    }
  }

  /// ClickHouse goes on with an insert whose whole body it has read even
  /// when its client is gone; until it ends, the events it holds are not
  /// visible, and would be shipped twice. Inserts that go on for longer
  /// are likely another run's, still alive; this is no lock, though: two
  /// runs at once may ship events twice.
  private func waitForEarlierInserts() throws(Failure) {
    let deadline = Date().addingTimeInterval(Self.earlierInsertWaitSeconds)
    while true {
      var running = 0
      do {
        for server in layout.servers {
          let answer = try server.execute(
            """
            SELECT count() FROM system.processes
            WHERE query_id LIKE '\(queryIdPrefix)%' OR initial_query_id LIKE '\(queryIdPrefix)%'
            """)
          running += Int(answer.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
      } catch {
        throw .cluster(error.description)
      }
      if running == 0 { return }
      guard Date() < deadline else {
        throw .cluster(
          "inserts of another run of this migration have gone on for"
            + " \(Int(Self.earlierInsertWaitSeconds)) s; run one at a time")
      }
      Thread.sleep(forTimeInterval: 0.2)
    }
  }
}
