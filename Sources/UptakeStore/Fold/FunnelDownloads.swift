import UptakeCore

/// The funnel_downloads rows a fold adds or changes (schema/0004, 0009):
/// each download row carries the install's version changes after its
/// first time (`later_changes`; the first of them also in the upgrade_*
/// columns). The fold calls `relink` for an install whose downloads or
/// version changes it touched, with the install's whole timeline; the rows
/// are written once each, in install order, at the end.
struct FunnelDownloads {
  /// The first version change after a download: versions are numbers of
  /// the fold's `TextNumbering`.
  struct Upgrade: Equatable {
    let ts: Int64
    let from: Int32
    let to: Int32
  }

  private struct Key: Equatable {
    let appNo: Int64
    let isTest: Bool
    /// The update id's number in `updates`.
    let update: Int32
    let day: Int32
    let installKey: Int64
  }

  private struct Row: Equatable {
    var firstTs: Int64
    var lastTs: Int64
    /// Every change after `firstTs`, in time order.
    var laterChanges: [Upgrade] = []
    /// The link of schema/0004's upgrade_* columns: the first of them.
    var upgrade: Upgrade? { laterChanges.first }
  }

  /// Update ids, of the batch and of the stored rows the fold reads.
  private var updates = TextNumbering()
  /// `updates`' number of each update rank of the batch.
  private let batchUpdates: [Int32]
  /// Rows to write; `merges`: into a stored row that was not read.
  private var changed: [(key: Key, row: Row, merges: Bool)] = []
  /// An install's stored row in one bucket, by its key.
  private let storedRow: Statement
  /// The update and day of each download bucket of an app and test flag.
  private let downloadBuckets: Statement
  /// `downloadBuckets` by app, test flag and day, read once a fold step for
  /// the apps a relink needs (`appsRead`): each update's number and its
  /// bucket's hash in the membership filters.
  private var updatesByDay: [BucketMembership.Day: [(update: Int32, hash: UInt64)]] = [:]
  private var appsRead: Set<AppScope> = []
  private let membership: BucketMembership

  private struct AppScope: Hashable {
    let appNo: Int64
    let isTest: Bool
  }

  init(_ database: Database, updateIds: [String], membership: BucketMembership)
    throws(StoreError)
  {
    storedRow = try database.statement(
      """
      SELECT first_ts, last_ts, later_changes FROM funnel_downloads
      WHERE app_no = ? AND is_test = ? AND update_id = ? AND day = ? AND install_key = ?
      """)
    downloadBuckets = try database.statement(
      """
      SELECT day, update_id FROM daily_counts WHERE app_no = ? AND is_test = ? AND action = ?
      """)
    var updates = TextNumbering()
    batchUpdates = updateIds.map { updates.number($0) }
    self.updates = updates
    self.membership = membership
  }

  /// Links the install's stored downloads and the batch's `events` of it
  /// to the first change of `timeline`, the install's install_days rows
  /// after the fold. Only rows that are new or whose link moved are
  /// written. An install has a few downloads, so plain arrays serve.
  ///
  /// The stored rows are read only when the fold moved the install's
  /// version changes (and it is `known`: an install new to this fold has
  /// none), by key (`storedRows`). Otherwise they are linked to those
  /// changes already, and the batch's downloads are merged into them as
  /// they are written (`write`), which keeps the earlier first time and
  /// that time's link. Reading them by install was a tenth of the fold
  /// under a flood of batches, where nearly every download is of an
  /// install whose versions did not move.
  mutating func relink(
    _ scope: ChangeScope, known: Bool, changesMoved: Bool, events: ArraySlice<FoldEvent>,
    timeline: [SeenRow], _ versions: inout TextNumbering
  ) throws(StoreError) {
    var rows: [(key: Key, stored: Row?, row: Row)] = []
    if known && changesMoved {
      rows = try storedRows(scope, days: timeline.map(\.day), &versions)
    }
    for event in events where event.action == UInt8(Action.download.rawValue) {
      let key = key(scope, batchUpdates[Int(event.update)], event.day)
      if let index = rows.firstIndex(where: { $0.key == key }) {
        rows[index].row.firstTs = min(rows[index].row.firstTs, event.timestampMs)
        rows[index].row.lastTs = max(rows[index].row.lastTs, event.timestampMs)
      } else {
        rows.append(
          (key, nil, Row(firstTs: event.timestampMs, lastTs: event.timestampMs)))
      }
    }
    guard !rows.isEmpty else { return }
    let changes = Self.changes(timeline, &versions)
    for (key, stored, var row) in rows {
      row.laterChanges = changes.filter { $0.ts > row.firstTs }
      if stored != row { changed.append((key, row, merges: !changesMoved)) }
    }
  }

  /// The install's stored rows on `days` (repeats allowed). A download is
  /// on a day the install was seen, so these are all its rows when `days`
  /// are its timeline's. Each is looked up by key, for each update with
  /// downloads that day, unless the day's membership filter rules the
  /// install out of that update's download bucket: under a flood nearly
  /// every lookup is ruled out, and without a filter (a day of few
  /// installs, or an old one) an install seen on many days of many updates
  /// costs a lookup each. That is rare, a version change after the day,
  /// where an index by install cost a B-tree insert for every download.
  private mutating func storedRows(
    _ scope: ChangeScope, days: [Int32], _ versions: inout TextNumbering
  ) throws(StoreError) -> [(key: Key, stored: Row?, row: Row)] {
    var rows: [(key: Key, stored: Row?, row: Row)] = []
    for day in Set(days).sorted() {
      let bucketDay = BucketMembership.Day(
        appNo: scope.appNo, isTest: scope.isTest, day: Int64(day))
      for (update, hash) in try downloadUpdates(on: bucketDay)
      where membership.mayHold(scope.installKey, bucket: hash, on: bucketDay) {
        try storedRow.bind(1, scope.appNo)
        try storedRow.bind(2, Int64(scope.isTest ? 1 : 0))
        try storedRow.bind(3, updates.texts[Int(update)])
        try storedRow.bind(4, Int64(day))
        try storedRow.bind(5, scope.installKey)
        defer { storedRow.reset() }
        guard try storedRow.step() else { continue }
        var later: [Upgrade] = []
        storedRow.withBlob(2) { packed in
          VersionChange.forEachPacked(in: packed) { ts, from, to in
            later.append(Upgrade(ts: ts, from: versions.number(from), to: versions.number(to)))
          }
        }
        let row = Row(firstTs: storedRow.int64(0), lastTs: storedRow.int64(1), laterChanges: later)
        rows.append((key(scope, update, day), row, row))
      }
    }
    return rows
  }

  /// The updates with a download bucket on `day`, each with its bucket's
  /// hash for `BucketMembership`; the app's buckets are read on first use.
  private mutating func downloadUpdates(on day: BucketMembership.Day) throws(StoreError)
    -> [(update: Int32, hash: UInt64)]
  {
    if appsRead.insert(AppScope(appNo: day.appNo, isTest: day.isTest)).inserted {
      try downloadBuckets.bind(1, day.appNo)
      try downloadBuckets.bind(2, Int64(day.isTest ? 1 : 0))
      try downloadBuckets.bind(3, Int64(Action.download.rawValue))
      defer { downloadBuckets.reset() }
      while try downloadBuckets.step() {
        let update = downloadBuckets.withText(1) { updates.number($0) }
        let hash = MemberFilter.bucketHash(
          updateId: updates.texts[Int(update)], action: Action.download.rawValue)
        updatesByDay[
          BucketMembership.Day(appNo: day.appNo, isTest: day.isTest, day: downloadBuckets.int64(0)),
          default: []
        ].append((update, hash))
      }
    }
    return updatesByDay[day] ?? []
  }

  func write(_ database: Database, versions: TextNumbering) throws(StoreError) {
    guard !changed.isEmpty else { return }
    let ordered = orderedByKey()
    let (replace, merge) = try Self.upserts(database)
    var packed: [UInt8] = []
    for (key, row, merges) in ordered {
      let upsert = merges ? merge : replace
      try upsert.bind(1, key.appNo)
      try upsert.bind(2, Int64(key.isTest ? 1 : 0))
      try upsert.bind(3, updates.texts[Int(key.update)])
      try upsert.bind(4, Int64(key.day))
      try upsert.bind(5, key.installKey)
      try upsert.bind(6, row.firstTs)
      try upsert.bind(7, row.lastTs)
      try upsert.bind(8, row.upgrade?.ts)
      try upsert.bind(9, row.upgrade.map { versions.texts[Int($0.from)] })
      try upsert.bind(10, row.upgrade.map { versions.texts[Int($0.to)] })
      packed.removeAll(keepingCapacity: true)
      for change in row.laterChanges {
        VersionChange(
          timestampMs: change.ts, from: versions.texts[Int(change.from)],
          to: versions.texts[Int(change.to)]
        ).pack(into: &packed)
      }
      try upsert.bind(11, packed)
      try upsert.run()
    }
  }

  /// The rows to write in the table's key order: one sweep of it. Until
  /// schema/0015 each row also went into an index by install, and they
  /// were written in install order for its sake.
  private func orderedByKey() -> [(key: Key, row: Row, merges: Bool)] {
    let ranks = updates.byteOrderRanks()
    return changed.sorted { lhs, rhs in
      let (left, right) = (lhs.key, rhs.key)
      if left.appNo != right.appNo { return left.appNo < right.appNo }
      if left.isTest != right.isTest { return !left.isTest }
      if left.update != right.update { return ranks[Int(left.update)] < ranks[Int(right.update)] }
      if left.day != right.day { return left.day < right.day }
      return left.installKey < right.installKey
    }
  }

  /// The upsert that replaces a stored row, and the one that merges into it.
  private static func upserts(_ database: Database) throws(StoreError)
    -> (replace: Statement, merge: Statement)
  {
    let insert = """
      INSERT INTO funnel_downloads (app_no, is_test, update_id, day, install_key, first_ts,
        last_ts, upgrade_ts, upgrade_from, upgrade_to, later_changes)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT DO UPDATE SET
      """
    let replace = try database.statement(
      insert
        + """
         first_ts = excluded.first_ts, last_ts = excluded.last_ts,
          upgrade_ts = excluded.upgrade_ts, upgrade_from = excluded.upgrade_from,
          upgrade_to = excluded.upgrade_to, later_changes = excluded.later_changes
        """)
    // A stored row linked to the same changes: the earlier first time
    // wins, with its link (SET reads the stored row's values throughout).
    let merge = try database.statement(
      insert
        + """
         first_ts = min(first_ts, excluded.first_ts), last_ts = max(last_ts, excluded.last_ts),
          upgrade_ts = iif(excluded.first_ts < first_ts, excluded.upgrade_ts, upgrade_ts),
          upgrade_from = iif(excluded.first_ts < first_ts, excluded.upgrade_from, upgrade_from),
          upgrade_to = iif(excluded.first_ts < first_ts, excluded.upgrade_to, upgrade_to),
          later_changes = iif(excluded.first_ts < first_ts, excluded.later_changes, later_changes)
        """)
    return (replace, merge)
  }

  /// The install's version changes in time order, as version_changes
  /// holds them: each row of the timeline on a higher version than the
  /// row before it.
  static func changes(_ timeline: [SeenRow], _ versions: inout TextNumbering) -> [Upgrade] {
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

  private func key(_ scope: ChangeScope, _ update: Int32, _ day: Int32) -> Key {
    Key(
      appNo: scope.appNo, isTest: scope.isTest, update: update, day: day,
      installKey: scope.installKey)
  }
}
