import UptakeCore

/// The funnel_downloads rows a fold adds or changes (schema/0004): each
/// download row linked to the install's first version change after its
/// first time. The fold calls `relink` for an install whose downloads or
/// version changes it touched, with the install's whole timeline; the rows
/// are written once each, in key order, at the end.
struct FunnelDownloads {
  /// The first version change after a download: versions are numbers of
  /// the fold's `TextNumbering`.
  struct Upgrade: Equatable {
    let ts: Int64
    let from: Int32
    let to: Int32
  }

  private struct Key: Hashable {
    let appNo: Int64
    let isTest: Bool
    let updateId: String
    let day: Int32
    let installKey: Int64
  }

  private struct Row: Equatable {
    var firstTs: Int64
    var lastTs: Int64
    var upgrade: Upgrade?
  }

  private var rows: [Key: Row] = [:]
  private let storedRows: Statement

  init(_ database: Database) throws(StoreError) {
    storedRows = try database.statement(
      """
      SELECT update_id, day, first_ts, last_ts, upgrade_ts, upgrade_from, upgrade_to
      FROM funnel_downloads WHERE app_no = ? AND is_test = ? AND install_key = ?
      """)
  }

  /// Links the install's stored downloads (read when `known`: an install
  /// new to this fold has none) and the batch's `events` of it to the
  /// first change of `timeline`, the install's install_days rows after
  /// the fold. Only rows that are new or whose link moved are written.
  mutating func relink(
    _ scope: ChangeScope, known: Bool, events: ArraySlice<FoldEvent>, timeline: [SeenRow],
    _ batch: inout FoldBatch
  ) throws(StoreError) {
    var stored: [Key: Row] = [:]
    if known {
      let statement = storedRows
      try statement.bind(1, scope.appNo)
      try statement.bind(2, Int64(scope.isTest ? 1 : 0))
      try statement.bind(3, scope.installKey)
      while try statement.step() {
        let upgrade =
          statement.isNull(4)
          ? nil
          : Upgrade(
            ts: statement.int64(4), from: statement.withText(5) { batch.versions.number($0) },
            to: statement.withText(6) { batch.versions.number($0) })
        stored[key(scope, statement.string(0), Int32(statement.int64(1)))] = Row(
          firstTs: statement.int64(2), lastTs: statement.int64(3), upgrade: upgrade)
      }
      statement.reset()
    }
    var current = stored
    for event in events where event.action == UInt8(Action.download.rawValue) {
      let key = key(scope, batch.updateIds[Int(event.update)], event.day)
      var row = current[key] ?? Row(firstTs: .max, lastTs: .min)
      row.firstTs = min(row.firstTs, event.timestampMs)
      row.lastTs = max(row.lastTs, event.timestampMs)
      current[key] = row
    }
    guard !current.isEmpty else { return }
    let changes = Self.changes(timeline, &batch.versions)
    for (key, var row) in current {
      row.upgrade = changes.first { $0.ts > row.firstTs }
      if stored[key] != row { rows[key] = row }
    }
  }

  func write(_ database: Database, versions: TextNumbering) throws(StoreError) {
    guard !rows.isEmpty else { return }
    let ordered = rows.sorted { lhs, rhs in
      let (left, right) = (lhs.key, rhs.key)
      if left.appNo != right.appNo { return left.appNo < right.appNo }
      if left.isTest != right.isTest { return !left.isTest }
      if left.updateId != right.updateId { return left.updateId.utf8.lexicographicallyPrecedes(right.updateId.utf8) }
      if left.day != right.day { return left.day < right.day }
      return left.installKey < right.installKey
    }
    let upsert = try database.statement(
      """
      INSERT INTO funnel_downloads (app_no, is_test, update_id, day, install_key, first_ts,
        last_ts, upgrade_ts, upgrade_from, upgrade_to)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT DO UPDATE SET first_ts = excluded.first_ts, last_ts = excluded.last_ts,
        upgrade_ts = excluded.upgrade_ts, upgrade_from = excluded.upgrade_from,
        upgrade_to = excluded.upgrade_to
      """)
    for (key, row) in ordered {
      try upsert.bind(1, key.appNo)
      try upsert.bind(2, Int64(key.isTest ? 1 : 0))
      try upsert.bind(3, key.updateId)
      try upsert.bind(4, Int64(key.day))
      try upsert.bind(5, key.installKey)
      try upsert.bind(6, row.firstTs)
      try upsert.bind(7, row.lastTs)
      try upsert.bind(8, row.upgrade?.ts)
      try upsert.bind(9, row.upgrade.map { versions.texts[Int($0.from)] })
      try upsert.bind(10, row.upgrade.map { versions.texts[Int($0.to)] })
      try upsert.run()
    }
  }

  /// The install's version changes in time order, as version_changes
  /// holds them: each row of the timeline on a higher version than the
  /// row before it.
  private static func changes(_ timeline: [SeenRow], _ versions: inout TextNumbering) -> [Upgrade]
  {
    let ordered = timeline.sorted { $0.isBefore($1) }
    var changes: [Upgrade] = []
    for (previous, row) in zip(ordered, ordered.dropFirst()) {
      guard let old = versions.version(previous.version), let new = versions.version(row.version),
        new > old
      else { continue }
      changes.append(Upgrade(ts: row.firstTs, from: previous.version, to: row.version))
    }
    return changes
  }

  private func key(_ scope: ChangeScope, _ updateId: String, _ day: Int32) -> Key {
    Key(
      appNo: scope.appNo, isTest: scope.isTest, updateId: updateId, day: day,
      installKey: scope.installKey)
  }
}
