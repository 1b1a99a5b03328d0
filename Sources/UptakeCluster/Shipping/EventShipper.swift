import UptakeStore

/// Ships a node's committed events from its spool (the SQLite database it
/// acknowledges into) to the cluster, in seq order, a block at a time, and
/// records how far it got.
///
/// At least once: a block is recorded as shipped only after ClickHouse took
/// it (every shard, `insert_distributed_sync`), so a crash between the two
/// ships it again. That is harmless: a shipped event keeps its id and its
/// shard, so the cluster's ReplacingMergeTree and its distinct counts see
/// one event.
public final class EventShipper {
  private let spool: Database
  private let layout: ClusterLayout
  private let blockEvents: Int
  private let nodeId: String

  /// `spool` must be migrated; its node is named on the first use.
  public init(spool: Database, layout: ClusterLayout, blockEvents: Int = 50_000)
    throws(StoreError)
  {
    self.spool = spool
    self.layout = layout
    self.blockEvents = blockEvents
    nodeId = try Self.nodeId(of: spool)
  }

  /// The seq of the last event shipped.
  public func shippedSeq() throws(StoreError) -> Int64 {
    try spool.scalarInt("SELECT shipped_seq FROM cluster_spool") ?? 0
  }

  /// Events committed and not shipped yet.
  public func pendingEvents() throws(StoreError) -> Int64 {
    let shipped = try shippedSeq()
    let statement = try spool.statement("SELECT count(*) FROM events WHERE seq > ?")
    defer { statement.reset() }
    try statement.bind(1, shipped)
    return try statement.step() ? statement.int64(0) : 0
  }

  /// When the oldest event not shipped yet was received; nil when none
  /// waits. Its age is the shipping lag.
  public func oldestWaitingReceivedMs() throws(StoreError) -> Int64? {
    let oldest = try spool.statement(
      "SELECT received_at FROM events WHERE seq > ? ORDER BY seq LIMIT 1")
    defer { oldest.reset() }
    try oldest.bind(1, try shippedSeq())
    return try oldest.step() ? oldest.int64(0) : nil
  }

  /// Deletes up to `maxEvents` shipped events from the spool, oldest
  /// first, so its file stops growing (SQLite reuses the pages freed);
  /// returns how many it deleted. The newest event always stays, shipped
  /// or not: seq is the rowid, and an emptied table would number the next
  /// event 1 again, below what is recorded as shipped.
  @discardableResult
  public func trimShipped(maxEvents: Int = 10_000) throws(StoreError) -> Int {
    try spool.write { () throws(StoreError) -> Int in
      let shipped = try shippedSeq()
      let trim = try spool.statement(
        """
        DELETE FROM events WHERE seq IN (
          SELECT seq FROM events
          WHERE seq <= ? AND seq < (SELECT max(seq) FROM events)
          ORDER BY seq LIMIT ?)
        """)
      try trim.bind(1, shipped)
      try trim.bind(2, maxEvents)
      try trim.run()
      return spool.changes
    }
  }

  /// Ships the next block of at most `blockEvents` events; returns how many
  /// it shipped, 0 when none wait.
  @discardableResult
  public func shipNextBlock() throws(ShippingError) -> Int {
    let block: EventBlock
    do {
      block = try EventBlock.read(
        from: spool, after: try shippedSeq(), limit: blockEvents, unnamedPrefix: nodeId)
    } catch {
      throw .spool(error)
    }
    guard block.count > 0 else { return 0 }
    do {
      try block.insert(into: layout)
    } catch {
      throw .cluster(error.failures)
    }
    do {
      try spool.write { () throws(StoreError) in
        let record = try spool.statement("UPDATE cluster_spool SET shipped_seq = ?")
        try record.bind(1, block.lastSeq)
        try record.run()
      }
    } catch {
      throw .spool(error)
    }
    return block.count
  }

  /// This spool's node id, made and kept on first use.
  private static func nodeId(of spool: Database) throws(StoreError) -> String {
    try spool.write { () throws(StoreError) -> String in
      let existing = try spool.statement("SELECT node_id FROM cluster_spool")
      defer { existing.reset() }
      if try existing.step() { return existing.string(0) }
      var generator = SystemRandomNumberGenerator()
      let id = String(generator.next() as UInt64, radix: 16)
      let create = try spool.statement(
        "INSERT INTO cluster_spool (only_row, node_id, shipped_seq) VALUES (1, ?, 0)")
      try create.bind(1, id)
      try create.run()
      return id
    }
  }
}

/// Why a block was not shipped: the spool could not be read or written,
/// or no server of the cluster took it.
public enum ShippingError: Error, CustomStringConvertible {
  case spool(StoreError)
  case cluster([ClickHouseError])

  public var description: String {
    switch self {
    case .spool(let error): "the spool: \(error)"
    case .cluster(let failures): failures.map(\.description).joined(separator: "; ")
    }
  }
}
