import UptakeCore

/// Folds stored events into the rollup tables of schema/0002_rollups.sql.
///
/// Why fold in bulk instead of updating the aggregates with every batch:
/// distinct install counts need one row per install and bucket, and install
/// ids are random, so per-batch upkeep dirtied a random page per event and
/// cut batch ingest from ~160k to ~14k events/s here (measured with
/// tools/wrk/events.lua, 100 events a request). A fold aggregates many events
/// in memory and writes each row once, in key order. The events themselves
/// are the durable log: `rollup_folded_seq` says how far the aggregates have
/// got, a crash only means folding again from there, and reports add the
/// events after it (`RollupTail`), so they are exact at every moment.
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

  /// Adds the delta to the tables. Each presence row is one INSERT OR
  /// IGNORE, whose change count says whether the install is new to its
  /// bucket; the bucket counts are written once at the end.
  static func write(_ delta: RollupDelta, _ database: Database) throws(StoreError) {
    var newInstalls: [RollupDelta.CountKey: Int] = [:]
    let insertInstall = try database.statement(
      """
      INSERT OR IGNORE INTO daily_installs (app_no, is_test, update_id, day, action, install_key,
        first_ts, first_version, last_ts)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      """)
    let widenInstall = try database.statement(
      """
      UPDATE daily_installs
      SET first_version = CASE WHEN ?7 < first_ts THEN ?8 ELSE first_version END,
        first_ts = min(first_ts, ?7), last_ts = max(last_ts, ?9)
      WHERE app_no = ?1 AND is_test = ?2 AND update_id = ?3 AND day = ?4 AND action = ?5
        AND install_key = ?6 AND (first_ts > ?7 OR last_ts < ?9)
      """)
    for (key, installs) in delta.dailyInstalls.sorted(by: { $0.key < $1.key }) {
      var added = 0
      for (install, day) in installs.sorted(by: { $0.key < $1.key }) {
        for statement in [insertInstall, widenInstall] {
          try bind(statement, key)
          try statement.bind(6, install)
          try statement.bind(7, day.firstTs)
          try statement.bind(8, day.firstVersion)
          try statement.bind(9, day.lastTs)
          try statement.run()
          if statement === insertInstall && database.changes > 0 {
            added += 1
            break
          }
        }
      }
      newInstalls[key] = added
    }
    let counts = try database.statement(
      """
      INSERT INTO daily_counts (app_no, is_test, update_id, day, action, events, installs,
        first_ts, last_ts)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT DO UPDATE SET events = events + excluded.events,
        installs = installs + excluded.installs, first_ts = min(first_ts, excluded.first_ts),
        last_ts = max(last_ts, excluded.last_ts)
      """)
    for (key, bucket) in delta.daily.sorted(by: { $0.key < $1.key }) {
      try bind(counts, key)
      try counts.bind(6, bucket.events)
      try counts.bind(7, newInstalls[key] ?? 0)
      try counts.bind(8, bucket.firstTs)
      try counts.bind(9, bucket.lastTs)
      try counts.run()
    }
    try writeSeen(delta.seen, database)
  }

  /// install_days, and from its new rows the adoption counts: a new
  /// (install, day, version) adds one to that version's installs, and to the
  /// day's when the install had no other version that day.
  private static func writeSeen(_ seen: [RollupDelta.SeenKey: Int64], _ database: Database)
    throws(StoreError)
  {
    struct VersionDay: Hashable {
      let appNo: Int64
      let isTest: Bool
      let day: Int64
      let appVersion: String
    }
    struct Day: Hashable {
      let appNo: Int64
      let isTest: Bool
      let day: Int64
    }
    var versions: [VersionDay: Int] = [:]
    var days: [Day: Int] = [:]
    let insert = try database.statement(
      """
      INSERT OR IGNORE INTO install_days (app_no, is_test, install_key, day, app_version, first_ts)
      VALUES (?, ?, ?, ?, ?, ?)
      """)
    let earlier = try database.statement(
      """
      UPDATE install_days SET first_ts = ?6
      WHERE app_no = ?1 AND is_test = ?2 AND install_key = ?3 AND day = ?4 AND app_version = ?5
        AND first_ts > ?6
      """)
    // The install's latest rows up to the day: whether it was seen on
    // another version that day already, and the version it was on before.
    let history = try database.statement(
      """
      SELECT day, app_version, first_ts FROM install_days
      WHERE app_no = ? AND is_test = ? AND install_key = ? AND day <= ?
      ORDER BY day DESC LIMIT 16
      """)
    // The install's rows from the day on: a row arriving late (a client's
    // retried batch) slots in before rows folded already, so the change
    // recorded for the row after it must start from it instead.
    let future = try database.statement(
      """
      SELECT day, app_version, first_ts FROM install_days
      WHERE app_no = ? AND is_test = ? AND install_key = ? AND day >= ?
      ORDER BY day LIMIT 16
      """)
    let forgetChange = try database.statement(
      """
      DELETE FROM version_changes WHERE app_no = ? AND is_test = ? AND from_version = ? AND day = ?
        AND install_key = ? AND to_version = ?
      """)
    let recordChange = try database.statement(
      """
      INSERT OR IGNORE INTO version_changes (app_no, is_test, from_version, day, install_key,
        to_version, ts)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      """)
    var versionCache = VersionCache()
    // Key order, but an install's versions of one day in time order, so each
    // row's history already holds the version seen just before it.
    let ordered = seen.sorted { lhs, rhs in
      let (left, right) = (lhs.key, rhs.key)
      if (left.appNo, left.isTest ? 1 : 0, left.installKey, left.day)
        != (right.appNo, right.isTest ? 1 : 0, right.installKey, right.day)
      {
        return left < right
      }
      return lhs.value < rhs.value
    }
    for (key, firstTs) in ordered {
      try bindSeen(insert, key, firstTs)
      try insert.run()
      guard database.changes > 0 else {
        try bindSeen(earlier, key, firstTs)
        try earlier.run()
        continue
      }
      versions[
        VersionDay(appNo: key.appNo, isTest: key.isTest, day: key.day, appVersion: key.appVersion),
        default: 0] += 1
      try history.bind(1, key.appNo)
      try history.bind(2, Int64(key.isTest ? 1 : 0))
      try history.bind(3, key.installKey)
      try history.bind(4, key.day)
      var seenOtherThatDay = false
      var previous: (day: Int64, version: String, ts: Int64)?
      while try history.step() {
        let day = history.int64(0)
        let appVersion = history.string(1)
        let ts = history.int64(2)
        if day == key.day && appVersion == key.appVersion { continue }
        if day == key.day { seenOtherThatDay = true }
        let isEarlier = day < key.day || ts < firstTs
        if isEarlier, (day, ts) > (previous?.day ?? .min, previous?.ts ?? .min) {
          previous = (day, appVersion, ts)
        }
      }
      history.reset()
      if !seenOtherThatDay {
        days[Day(appNo: key.appNo, isTest: key.isTest, day: key.day), default: 0] += 1
      }
      func change(_ statement: Statement, from: String, day: Int64, to: String, ts: Int64?)
        throws(StoreError)
      {
        guard let old = versionCache.version(from), let new = versionCache.version(to), new > old
        else {
          return
        }
        try statement.bind(1, key.appNo)
        try statement.bind(2, Int64(key.isTest ? 1 : 0))
        try statement.bind(3, from)
        try statement.bind(4, day)
        try statement.bind(5, key.installKey)
        try statement.bind(6, to)
        if let ts { try statement.bind(7, ts) }
        try statement.run()
      }
      if let previous {
        try change(
          recordChange, from: previous.version, day: key.day, to: key.appVersion, ts: firstTs)
      }
      try future.bind(1, key.appNo)
      try future.bind(2, Int64(key.isTest ? 1 : 0))
      try future.bind(3, key.installKey)
      try future.bind(4, key.day)
      var next: (day: Int64, version: String, ts: Int64)?
      while try future.step() {
        let day = future.int64(0)
        let appVersion = future.string(1)
        let ts = future.int64(2)
        if day == key.day && appVersion == key.appVersion { continue }
        let isLater = day > key.day || ts > firstTs
        if isLater, (day, ts) < (next?.day ?? .max, next?.ts ?? .max) {
          next = (day, appVersion, ts)
        }
      }
      future.reset()
      if let next {
        if let previous {
          try change(forgetChange, from: previous.version, day: next.day, to: next.version, ts: nil)
        }
        try change(recordChange, from: key.appVersion, day: next.day, to: next.version, ts: next.ts)
      }
    }
    let addVersion = try database.statement(
      """
      INSERT INTO daily_versions (app_no, is_test, day, app_version, installs) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT DO UPDATE SET installs = installs + excluded.installs
      """)
    for (key, installs) in versions {
      try addVersion.bind(1, key.appNo)
      try addVersion.bind(2, Int64(key.isTest ? 1 : 0))
      try addVersion.bind(3, key.day)
      try addVersion.bind(4, key.appVersion)
      try addVersion.bind(5, installs)
      try addVersion.run()
    }
    let addDay = try database.statement(
      """
      INSERT INTO daily_active (app_no, is_test, day, installs) VALUES (?, ?, ?, ?)
      ON CONFLICT DO UPDATE SET installs = installs + excluded.installs
      """)
    for (key, installs) in days {
      try addDay.bind(1, key.appNo)
      try addDay.bind(2, Int64(key.isTest ? 1 : 0))
      try addDay.bind(3, key.day)
      try addDay.bind(4, installs)
      try addDay.run()
    }
  }

  private static func bindSeen(_ statement: Statement, _ key: RollupDelta.SeenKey, _ firstTs: Int64)
    throws(StoreError)
  {
    try statement.bind(1, key.appNo)
    try statement.bind(2, Int64(key.isTest ? 1 : 0))
    try statement.bind(3, key.installKey)
    try statement.bind(4, key.day)
    try statement.bind(5, key.appVersion)
    try statement.bind(6, firstTs)
  }

  private static func bind(_ statement: Statement, _ key: RollupDelta.CountKey)
    throws(StoreError)
  {
    try statement.bind(1, key.appNo)
    try statement.bind(2, Int64(key.isTest ? 1 : 0))
    try statement.bind(3, key.updateId)
    try statement.bind(4, key.day)
    try statement.bind(5, Int64(key.action.rawValue))
  }
}
