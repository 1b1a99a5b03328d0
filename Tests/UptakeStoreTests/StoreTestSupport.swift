import Foundation
import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

extension ScratchDirectory {
  /// A new connection to the test's database, migrated.
  func openDatabase() throws -> Database {
    let database = try Database(path: databasePath)
    try Migrator.migrate(database)
    return database
  }
}

/// Epoch milliseconds of an RFC 3339 time written in a test.
func ms(_ rfc3339: String) -> Int64 {
  guard let value = Timestamp.parseRFC3339(rfc3339) else {
    preconditionFailure("not an RFC 3339 time in a test: \(rfc3339)")
  }
  return value
}

/// An event with the fields a test cares about; the rest are plausible.
func event(
  id: String? = nil, updateId: String = "u1", action: Action = .impression,
  appVersion: String = "1.0.0", installId: String? = nil, at time: String = "2026-03-10T12:00:00Z",
  osVersion: String? = nil, platform: Platform? = nil, isTest: Bool = false
) -> Event {
  Event(
    id: id, updateId: updateId, action: action, appVersion: appVersion, installId: installId,
    timestampMs: ms(time), osVersion: osVersion, platform: platform, isTest: isTest)
}

/// Events with the given ids, everything else alike.
func events(ids: [String?]) -> [Event] {
  ids.map { event(id: $0) }
}

/// A batch of `events` for `appNo`, received at a fixed time.
func batch(_ appNo: Int64, _ events: [Event]) -> EventBatch {
  EventBatch(appNo: appNo, events: events, receivedAtMs: ms("2026-03-10T12:00:00Z"))
}

/// A scratch database with the app "shop", an inserter and a folder on it: one side
/// of the tests that fold the same events two ways and compare.
struct ShopStore {
  let database: Database
  let appNo: Int64
  let inserter: EventInserter
  let folder: RollupFolder

  init(_ scratch: ScratchDirectory) throws {
    database = try scratch.openDatabase()
    appNo = try database.addApp("shop")
    inserter = EventInserter(database: database)
    folder = RollupFolder(database: database)
  }

  /// Stores `events` in one batch; returns how many were accepted.
  func store(_ events: [Event]) throws -> Int {
    try inserter.insert([batch(appNo, events)])[0].accepted
  }
}

/// The same slices of events stored twice, each in a scratch store of its
/// own: folded slice by slice, a fold each, and folded all at once.
/// `remove()` deletes both.
struct FoldedTwice {
  let stepwise: ShopStore
  let atOnce: ShopStore
  private let directories: [ScratchDirectory]

  init(_ slices: [[Event]]) throws {
    directories = [try ScratchDirectory(), try ScratchDirectory()]
    stepwise = try ShopStore(directories[0])
    for slice in slices {
      let stored = try stepwise.store(slice)
      #expect(try stepwise.folder.fold(maxEvents: stored) == stored)
    }
    atOnce = try ShopStore(directories[1])
    _ = try atOnce.store(slices.flatMap { $0 })
    try atOnce.folder.foldAll()
  }

  func remove() {
    for directory in directories { directory.remove() }
  }
}

extension Database {
  /// Rows in the events table.
  func storedEventCount() throws -> Int64 {
    try scalarInt("SELECT count(*) FROM events") ?? 0
  }

  /// Creates an app and returns its number.
  func addApp(_ appId: String) throws -> Int64 {
    _ = try AppRegistry.add(appId, in: self, nowMs: ms("2026-03-01T00:00:00Z"))
    guard let app = try AppRegistry.list(in: self).first(where: { $0.appId == appId }) else {
      preconditionFailure("app \(appId) was just added")
    }
    return app.appNo
  }
}

extension Database {
  /// Rebuilds daily_installs (schema/0002), which schema/0011 replaced by
  /// bucket_members, as the fold kept it, from the stored events: a row
  /// per install and bucket with its first time, the version then, and its
  /// last time. The tests of migrations that read it (0004, 0007, 0008,
  /// 0011) run them on a database folded by today's fold.
  func recreateDailyInstalls() throws {
    // The table as schema/0002 created it.
    let rollups = try #require(embeddedMigrations.first { $0.name == "0002_rollups" }?.text)
    let start = try #require(rollups.range(of: "CREATE TABLE daily_installs"))
    let end = try #require(
      rollups.range(of: "WITHOUT ROWID;", range: start.upperBound..<rollups.endIndex))
    try execute(String(rollups[start.lowerBound..<end.upperBound]))
    try execute(
      """
      INSERT INTO daily_installs
      SELECT first.app_no, first.is_test, first.update_id, first.day, first.action,
        first.install_key, first.first_ts, first.first_version, last.last_ts
      FROM (
        -- One min() aggregate: the bare app_version is that row's.
        SELECT app_no, is_test, update_id, ts / 86400000 AS day, action,
          uptake_install_key(app_no, install_id) AS install_key, min(ts) AS first_ts,
          app_version AS first_version
        FROM events WHERE install_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6
      ) AS first
      JOIN (
        SELECT app_no, is_test, update_id, ts / 86400000 AS day, action,
          uptake_install_key(app_no, install_id) AS install_key, max(ts) AS last_ts
        FROM events WHERE install_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6
      ) AS last USING (app_no, is_test, update_id, day, action, install_key);
      """)
  }
}

extension Database {
  /// Puts the rollup tables back in the events file, where a database from
  /// before the rollups file has them, so a test can run an old migration
  /// on them as such a database would; the next `Migrator.migrate` moves
  /// them out again (`RollupsFile.place`).
  func putRollupsBackInEventsFile() throws {
    try write { () throws(StoreError) in
      let schema = try statement(
        "SELECT sql FROM rollups.sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL ORDER BY type = 'table' DESC"
      )
      for table in RollupsFile.tables {
        try schema.bind(1, table)
        var statements: [String] = []
        while try schema.step() { statements.append(schema.string(0)) }
        schema.reset()
        // Stored without the schema's name, so they create in main.
        for sql in statements { try execute(sql) }
        try execute("INSERT INTO main.\(table) SELECT * FROM rollups.\(table)")
        try execute("DROP TABLE rollups.\(table)")
      }
      try execute(
        """
        INSERT OR REPLACE INTO main.store_state (name, value)
        SELECT name, value FROM rollups.fold_state WHERE name = 'rollup_folded_seq';
        DROP TABLE rollups.fold_state;
        """)
    }
  }
}

extension RollupFolder {
  /// Folds every stored event, in steps of `step` events; returns how many.
  @discardableResult
  func foldAll(step: Int = 50_000) throws -> Int {
    var folded = 0
    while case let count = try fold(maxEvents: step), count > 0 { folded += count }
    return folded
  }
}
