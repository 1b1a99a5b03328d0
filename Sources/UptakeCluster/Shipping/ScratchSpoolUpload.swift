import Foundation
import UptakeStore

/// Ships the events a command stored in a scratch spool (`uptake import
/// --clickhouse`: the file's lines checked, and its duplicates dropped, by
/// the same writer as on one box) to the cluster, each once: events the
/// cluster holds already, as when a file is imported again or after a
/// killed import, are left out and counted, as one box counts them as
/// duplicates.
public struct ScratchSpoolUpload {
  /// What an upload did.
  public struct Outcome: Sendable, Equatable {
    /// Events inserted into the cluster.
    public var shipped: Int64 = 0
    /// Events the cluster held already.
    public var present: Int64 = 0
  }

  private let spool: Database
  private let layout: ClusterLayout
  private let blockEvents: Int
  /// Names the spool's events that came without an id, so that each
  /// import's own are its own.
  private let unnamedPrefix: String

  public init(spool: Database, layout: ClusterLayout, blockEvents: Int = 50_000) {
    self.spool = spool
    self.layout = layout
    self.blockEvents = blockEvents
    var generator = SystemRandomNumberGenerator()
    unnamedPrefix = "import-" + String(generator.next() as UInt64, radix: 16)
  }

  /// Ships every event of the spool, a block at a time; `progress` is told
  /// the events done and the events in all after each block.
  public func run(progress: (_ done: Int64, _ total: Int64) -> Void) throws(ShippingError)
    -> Outcome
  {
    let total: Int64
    do {
      total = try spool.scalarInt("SELECT count(*) FROM events") ?? 0
    } catch {
      throw .spool(error)
    }
    var outcome = Outcome()
    var seq: Int64 = 0
    while true {
      let block: EventBlock
      do {
        block = try EventBlock.read(
          from: spool, after: seq, limit: blockEvents, unnamedPrefix: unnamedPrefix)
      } catch {
        throw .spool(error)
      }
      guard block.count > 0 else { return outcome }
      do {
        let present = try block.inCluster(layout)
        try block.leavingOut(present).insert(into: layout)
        outcome.present += Int64(present.count)
        outcome.shipped += Int64(block.count - present.count)
      } catch {
        throw .cluster(error.failures)
      }
      seq = block.lastSeq
      progress(outcome.shipped + outcome.present, total)
    }
  }
}
