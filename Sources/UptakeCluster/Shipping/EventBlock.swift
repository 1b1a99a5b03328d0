import Foundation
import UptakeCore
import UptakeStore

/// A run of a SQLite database's events in seq order, as the cluster's
/// `events` takes them (`RowBinary`, in the order of `columns`), with each
/// event's key there: what a node ships from its spool (`EventShipper`) and what
/// `OneBoxMigration` copies from a one-box database, written in one place.
public struct EventBlock: Sendable {
  /// An event's place in the cluster's `events`, whose sorting key is
  /// (app_id, day, id): the same event shipped twice has the same key.
  public struct Key: Hashable, Sendable {
    public let appId: String
    /// YYYY-MM-DD, UTC, of the event's timestamp.
    public let day: String
    public let id: String
  }

  /// One key an event, in seq order.
  public private(set) var keys: [Key] = []
  /// The seq of the block's last event (the seq read after when empty).
  public private(set) var lastSeq: Int64
  private var rows = RowBinary()
  /// Where each event's row ends in `rows`.
  private var rowEnds: [Int] = []

  public var count: Int { keys.count }

  private init(after seq: Int64) {
    lastSeq = seq
  }

  /// Up to `limit` events after `seq`, none past `last`. An event stored
  /// without an id is given `~unnamedPrefix:seq`, unique to the database
  /// that took it and the same at every read.
  public static func read(
    from database: Database, after seq: Int64, through last: Int64 = .max, limit: Int,
    unnamedPrefix: String
  ) throws(StoreError) -> EventBlock {
    try database.read { () throws(StoreError) -> EventBlock in
      let statement = try database.statement(
        """
        SELECT e.seq, a.app_id, e.client_id, e.update_id, e.action, e.app_version, e.install_id,
          e.platform, e.os_version, e.previous_app_version, e.is_test, e.ts, e.received_at
        FROM events e JOIN apps a ON a.app_no = e.app_no
        WHERE e.seq > ? AND e.seq <= ? ORDER BY e.seq LIMIT ?
        """)
      defer { statement.reset() }
      try statement.bind(1, seq)
      try statement.bind(2, last)
      try statement.bind(3, limit)
      var block = EventBlock(after: seq)
      while try statement.step() {
        block.append(statement, unnamedPrefix: unnamedPrefix)
      }
      return block
    }
  }

  /// The columns of `rows`, in their order.
  static let columns =
    "app_id, id, update_id, action, app_version, install_id, platform, os_version,"
    + " previous_app_version, is_test, ts_ms, received_ms, day"

  private mutating func append(_ statement: Statement, unnamedPrefix: String) {
    lastSeq = statement.int64(0)
    let appId = statement.string(1)
    let id = statement.optionalString(2) ?? "~\(unnamedPrefix):\(lastSeq)"
    let timestampMs = statement.int64(11)
    let dayNumber = Timestamp.dayNumber(ms: timestampMs)
    rows.string(appId)
    rows.string(id)
    statement.withText(3) { rows.string($0) }
    rows.byte(UInt8(Action(rawValue: statement.int(4))?.rawValue ?? 0))
    statement.withText(5) { rows.string($0) }
    // No installId is kept as '': the sorting and sharding keys cannot be
    // NULL.
    statement.withText(6) { rows.string($0) }
    for column: Int32 in 7...9 {
      if statement.isNull(column) {
        rows.null()
      } else {
        statement.withText(column) { rows.present($0) }
      }
    }
    rows.byte(statement.int(10) == 0 ? 0 : 1)
    rows.int64(timestampMs)
    rows.int64(statement.int64(12))
    rows.date(dayNumber: dayNumber)
    rowEnds.append(rows.data.count)
    keys.append(Key(appId: appId, day: Timestamp.formatDate(dayNumber: dayNumber), id: id))
  }

  /// The block without the events whose keys are in `present`; its
  /// `lastSeq` stays, so what follows it is read after the same seq.
  public func leavingOut(_ present: Set<Key>) -> EventBlock {
    var kept = EventBlock(after: lastSeq)
    var start = 0
    for (index, key) in keys.enumerated() {
      defer { start = rowEnds[index] }
      guard !present.contains(key) else { continue }
      kept.rows.append(rows.data[start..<rowEnds[index]])
      kept.rowEnds.append(kept.rows.data.count)
      kept.keys.append(key)
    }
    return kept
  }

  /// Inserts the block through the first server that answers, which sends
  /// each event to its shard and answers once every shard has it
  /// (`insert_distributed_sync`). `queryId` names the insert on the
  /// servers, so a later run can see whether it still runs.
  func insert(into layout: ClusterLayout, queryId: String? = nil) throws(NoServerAnswered) {
    guard !keys.isEmpty else { return }
    var settings = ["insert_distributed_sync": "1"]
    if let queryId { settings["query_id"] = queryId }
    try layout.fromFirstServer { server throws(ClickHouseError) in
      try server.insert(
        "INSERT INTO \(layout.insertTable) (\(Self.columns)) FORMAT RowBinary", data: rows.data,
        settings: settings)
    }
  }
}
