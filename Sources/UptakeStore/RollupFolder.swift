import UptakeCore

/// Folds stored events into the rollup tables of schema/0002_rollups.sql.
///
/// Why fold in bulk instead of updating the aggregates with every batch:
/// distinct install counts need one row per install and bucket, and install
/// ids are random, so per-batch upkeep dirtied a random page per event and
/// cut batch ingest from ~160k to ~14k events/s here (measured with
/// tools/wrk/events.lua, 100 events a request). Folding many events at once,
/// with the keys sorted, writes each touched page once per fold. The events
/// themselves are the durable log: `rollup_folded_seq` says how far the
/// aggregates have got, a crash only means folding again from there, and
/// reports add the events after it (`RollupTail`), so they are exact at every
/// moment.
enum RollupFolder {
  static let foldedSeqName = "rollup_folded_seq"

  /// The seq of the last event folded into the aggregates.
  static func foldedSeq(_ database: Database) throws(StoreError) -> Int64 {
    let statement = try database.statement("SELECT value FROM store_state WHERE name = ?")
    try statement.bind(1, foldedSeqName)
    defer { statement.reset() }
    return try statement.step() ? statement.int64(0) : 0
  }

  /// Folds up to `maxEvents` events in one transaction; returns how many.
  static func fold(_ database: Database, maxEvents: Int) throws(StoreError) -> Int {
    try database.write { () throws(StoreError) -> Int in
      let after = try foldedSeq(database)
      var delta = RollupDelta()
      var lastSeq = after
      var count = 0
      let statement = try database.statement(
        """
        SELECT seq, app_no, update_id, action, app_version, install_id, ts, is_test
        FROM events WHERE seq > ? ORDER BY seq LIMIT ?
        """)
      try statement.bind(1, after)
      try statement.bind(2, maxEvents)
      while try statement.step() {
        lastSeq = statement.int64(0)
        count += 1
        if let event = RollupTail.event(statement, firstColumn: 1) { delta.add(event) }
      }
      statement.reset()
      guard count > 0 else { return 0 }
      try write(delta, database)
      let record = try database.statement(
        "INSERT OR REPLACE INTO store_state (name, value) VALUES (?, ?)")
      try record.bind(1, foldedSeqName)
      try record.bind(2, lastSeq)
      try record.run()
      return count
    }
  }

  /// Adds the delta to the tables, bucket by bucket in key order.
  static func write(_ delta: RollupDelta, _ database: Database) throws(StoreError) {
    let newHourly = try insertMembers(
      delta.hourlyInstalls,
      into: "hourly_installs (app_no, is_test, update_id, hour, action, install_key)",
      bind: bindCountKey, database)
    try upsertCounts(
      delta.hourly, newInstalls: newHourly, table: "hourly_counts", time: "hour", database)
    let newDaily = try writeDailyInstalls(delta.dailyInstalls, database)
    try upsertCounts(
      delta.daily, newInstalls: newDaily, table: "daily_counts", time: "day", database)

    let newVersions = try insertMembers(
      delta.versionInstalls,
      into: "version_installs (app_no, is_test, day, app_version, install_key)",
      bind: { statement, key throws(StoreError) in
        try statement.bind(1, key.appNo)
        try statement.bind(2, Int64(key.isTest ? 1 : 0))
        try statement.bind(3, key.day)
        try statement.bind(4, key.appVersion)
      }, database)
    let versions = try database.statement(
      """
      INSERT INTO daily_versions (app_no, is_test, day, app_version, installs) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT DO UPDATE SET installs = installs + excluded.installs
      """)
    for (key, installs) in newVersions.sorted(by: { $0.key < $1.key }) where installs > 0 {
      try versions.bind(1, key.appNo)
      try versions.bind(2, Int64(key.isTest ? 1 : 0))
      try versions.bind(3, key.day)
      try versions.bind(4, key.appVersion)
      try versions.bind(5, installs)
      try versions.run()
    }

    let newActive = try insertMembers(
      delta.activeInstalls, into: "active_installs (app_no, is_test, day, install_key)",
      bind: { statement, key throws(StoreError) in
        try statement.bind(1, key.appNo)
        try statement.bind(2, Int64(key.isTest ? 1 : 0))
        try statement.bind(3, key.day)
      }, database)
    let active = try database.statement(
      """
      INSERT INTO daily_active (app_no, is_test, day, installs) VALUES (?, ?, ?, ?)
      ON CONFLICT DO UPDATE SET installs = installs + excluded.installs
      """)
    for (key, installs) in newActive.sorted(by: { $0.key < $1.key }) where installs > 0 {
      try active.bind(1, key.appNo)
      try active.bind(2, Int64(key.isTest ? 1 : 0))
      try active.bind(3, key.day)
      try active.bind(4, installs)
      try active.run()
    }

    let firstSeen = try database.statement(
      """
      INSERT INTO install_versions (app_no, is_test, install_key, app_version, first_ts)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT DO UPDATE SET first_ts = excluded.first_ts
      WHERE excluded.first_ts < install_versions.first_ts
      """)
    for (key, firstTs) in delta.installVersions.sorted(by: { $0.key < $1.key }) {
      try firstSeen.bind(1, key.appNo)
      try firstSeen.bind(2, Int64(key.isTest ? 1 : 0))
      try firstSeen.bind(3, key.installKey)
      try firstSeen.bind(4, key.appVersion)
      try firstSeen.bind(5, firstTs)
      try firstSeen.run()
    }
  }

  /// Inserts each bucket's installs (INSERT OR IGNORE, the install key
  /// last) and returns how many were new per bucket.
  private static func insertMembers<Key: Comparable>(
    _ members: [Key: Set<Int64>], into table: String,
    bind: (Statement, Key) throws(StoreError) -> Void, _ database: Database
  ) throws(StoreError) -> [Key: Int] {
    let columnCount = table.split(separator: ",").count
    let placeholders = Array(repeating: "?", count: columnCount).joined(separator: ", ")
    let insert = try database.statement("INSERT OR IGNORE INTO \(table) VALUES (\(placeholders))")
    var added: [Key: Int] = [:]
    for (key, installs) in members.sorted(by: { $0.key < $1.key }) {
      var count = 0
      for install in installs.sorted() {
        try bind(insert, key)
        try insert.bind(Int32(columnCount), install)
        try insert.run()
        count += database.changes
      }
      added[key] = count
    }
    return added
  }

  /// Daily installs carry the first and last event of the day, so an
  /// existing row may need widening; returns the new installs per bucket.
  private static func writeDailyInstalls(
    _ members: [RollupDelta.CountKey: [Int64: RollupDelta.InstallDay]], _ database: Database
  ) throws(StoreError) -> [RollupDelta.CountKey: Int] {
    let insert = try database.statement(
      """
      INSERT OR IGNORE INTO daily_installs (app_no, is_test, update_id, day, action, install_key,
        first_ts, first_version, last_ts)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      """)
    let widen = try database.statement(
      """
      UPDATE daily_installs
      SET first_version = CASE WHEN ?7 < first_ts THEN ?8 ELSE first_version END,
        first_ts = min(first_ts, ?7), last_ts = max(last_ts, ?9)
      WHERE app_no = ?1 AND is_test = ?2 AND update_id = ?3 AND day = ?4 AND action = ?5
        AND install_key = ?6 AND (first_ts > ?7 OR last_ts < ?9)
      """)
    var added: [RollupDelta.CountKey: Int] = [:]
    for (key, installs) in members.sorted(by: { $0.key < $1.key }) {
      var count = 0
      for (install, day) in installs.sorted(by: { $0.key < $1.key }) {
        try bindCountKey(insert, key)
        try insert.bind(6, install)
        try insert.bind(7, day.firstTs)
        try insert.bind(8, day.firstVersion)
        try insert.bind(9, day.lastTs)
        try insert.run()
        if database.changes > 0 {
          count += 1
          continue
        }
        try bindCountKey(widen, key)
        try widen.bind(6, install)
        try widen.bind(7, day.firstTs)
        try widen.bind(8, day.firstVersion)
        try widen.bind(9, day.lastTs)
        try widen.run()
      }
      added[key] = count
    }
    return added
  }

  private static func upsertCounts(
    _ counts: [RollupDelta.CountKey: RollupDelta.Counts], newInstalls: [RollupDelta.CountKey: Int],
    table: String, time: String, _ database: Database
  ) throws(StoreError) {
    let upsert = try database.statement(
      """
      INSERT INTO \(table) (app_no, is_test, update_id, \(time), action, events, installs,
        first_ts, last_ts)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT DO UPDATE SET events = events + excluded.events,
        installs = installs + excluded.installs, first_ts = min(first_ts, excluded.first_ts),
        last_ts = max(last_ts, excluded.last_ts)
      """)
    for (key, bucket) in counts.sorted(by: { $0.key < $1.key }) {
      try bindCountKey(upsert, key)
      try upsert.bind(6, bucket.events)
      try upsert.bind(7, newInstalls[key] ?? 0)
      try upsert.bind(8, bucket.firstTs)
      try upsert.bind(9, bucket.lastTs)
      try upsert.run()
    }
  }

  private static func bindCountKey(_ statement: Statement, _ key: RollupDelta.CountKey)
    throws(StoreError)
  {
    try statement.bind(1, key.appNo)
    try statement.bind(2, Int64(key.isTest ? 1 : 0))
    try statement.bind(3, key.updateId)
    try statement.bind(4, key.time)
    try statement.bind(5, Int64(key.action.rawValue))
  }
}
