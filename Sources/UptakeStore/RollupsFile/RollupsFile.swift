/// Owns where the report aggregates (the rollups) live: a file of their
/// own beside the events (`Database.rollupsPath(for:)`, attached to every
/// connection as `rollups`), checked after every migration and moved,
/// emptied or rebuilt as `Placement` says. It stores nothing itself.
///
/// Why: SQLite lets one connection write a file at a time, and folding
/// events into the aggregates takes as long as storing them. In one file
/// the daemon's one writer did both in turn, and past the backlog cap ingest
/// ran at the fold's pace on one core while the other idled. With the
/// aggregates in their own file a fold thread writes them while the writer
/// stores events (docs/performance.md).
///
/// The aggregates are derived from the events, which stay in the events
/// file with everything that is not derived (apps, keys, configurations,
/// the duplicate index). So the rollups file is never the only copy of
/// anything: when it is missing, belongs to another database, is ahead
/// of the events (an older events file restored), or was written unsynced
/// when the machine went down (`UnsyncedRollups`), it is emptied and the
/// fold builds it again from the events.
public enum RollupsFile {
  /// The tables the fold writes and the reports read.
  static let tables = [
    "daily_counts", "install_days", "daily_versions", "daily_active", "dimension_sets",
    "dimension_count_runs", "presence_runs", "daily_install_chunks", "funnel_impression_chunks",
    "funnel_download_chunks",
  ]

  /// Tables earlier versions folded into, dropped with the rest when the
  /// file is emptied.
  static let retiredTables = ["version_changes", "funnel_downloads"]

  /// The events file's store_state row a migration adds when it changes
  /// what the rollups hold in a way the rows folded so far cannot follow
  /// (schema/0016): the file is emptied and folded again, once.
  static let refoldName = "rollups_refold"

  /// How `place` found the rollups file.
  public enum Placement: Equatable, Sendable {
    /// In place already.
    case ready
    /// A new database's, made in place (its migrations create the tables
    /// in the events file, and they move while still empty).
    case created
    /// The aggregates were in the events file (a database from before the
    /// split, or a new one: the migrations create them there) and moved.
    case moved
    /// Missing, another database's, ahead of the events, or unsynced when
    /// the machine went down: emptied, to be folded again from the events.
    case rebuilt(reason: String)
  }

  /// Names in the events file's store_state and the rollups' fold_state.
  static let databaseIdName = "database_id"
  static let foldedSeqName = RollupFolder.foldedSeqName

  /// Puts the aggregates where they belong after the migrations: see
  /// `Placement`. Safe to run from several processes at once.
  @discardableResult
  static func place(_ database: Database) throws(StoreError) -> Placement {
    precondition(database.hasRollups, "place needs the rollups file attached")
    let databaseId = try identity(database)
    let refold = try isRefoldPending(database)
    if try move(database, databaseId: databaseId) {
      let hasEvents = try database.scalarInt("SELECT EXISTS (SELECT 1 FROM main.events)") == 1
      if !hasEvents {
        if refold { try database.write { () throws(StoreError) in try clearRefold(database) } }
        return .created
      }
      if !refold { return .moved }
    }
    guard
      let reason = database.discardedStaleRollups
        ? UnsyncedRollups.discardReason
        : refold
          ? "a migration changed what the rollups hold"
          : try rebuildReason(database, databaseId: databaseId)
    else { return .ready }
    let schema = try freshSchema()
    let recreated = try database.write { () throws(StoreError) -> Bool in
      // Another process may have refolded since: then the marker is gone.
      if refold && !database.discardedStaleRollups, try !isRefoldPending(database) {
        return false
      }
      try recreate(schema, in: database, databaseId: databaseId)
      try clearRefold(database)
      return true
    }
    guard recreated else { return .ready }
    database.discardedStaleRollups = false
    return .rebuilt(reason: reason)
  }

  /// The events file's random identity, made at its first placement, so a
  /// rollups file can tell whose it is.
  private static func identity(_ database: Database) throws(StoreError) -> Int64 {
    // Read first, as the migrations do: it is there but on the first start.
    if let id = try database.scalarInt(
      "SELECT value FROM main.store_state WHERE name = '\(databaseIdName)'")
    {
      return id
    }
    return try database.write { () throws(StoreError) -> Int64 in
      let read = try database.statement("SELECT value FROM main.store_state WHERE name = ?")
      try read.bind(1, databaseIdName)
      defer { read.reset() }
      if try read.step() { return read.int64(0) }
      let id = Int64.random(in: 1...Int64.max)
      let record = try database.statement(
        "INSERT INTO main.store_state (name, value) VALUES (?, ?)")
      try record.bind(1, databaseIdName)
      try record.bind(2, id)
      try record.run()
      return id
    }
  }

  /// Moves the rollup tables found in the events file into the rollups
  /// file: all of them in a database from before the split or a new one
  /// (the migrations create them there), a new table a later migration
  /// made. In two transactions, because SQLite commits attached files one
  /// after the other: first a copy (a crash leaves the originals, and the
  /// copy is made again), then the originals are dropped. False when there
  /// were none to move.
  private static func move(_ database: Database, databaseId: Int64) throws(StoreError) -> Bool {
    // Read first: nothing to move but on an upgrade or a new database.
    guard try !tableSchema(database, in: "main").isEmpty else { return false }
    let moved = try database.write { () throws(StoreError) -> [String] in
      let schema = try tableSchema(database, in: "main")
      guard !schema.isEmpty else { return [] }
      for table in schema {
        try database.execute("DROP TABLE IF EXISTS rollups.\(table.table)")
        for sql in table.statements { try database.execute(try qualified(sql)) }
        try database.execute(
          "INSERT INTO rollups.\(table.table) SELECT * FROM main.\(table.table)")
      }
      // The folded seq is the events file's while the aggregates are there.
      let foldedSeq = try database.scalarInt(
        "SELECT value FROM main.store_state WHERE name = '\(foldedSeqName)'")
      try recordFoldState(database, databaseId: databaseId, foldedSeq: foldedSeq)
      return schema.map(\.table)
    }
    guard !moved.isEmpty else { return false }
    try database.write { () throws(StoreError) in
      for table in moved { try database.execute("DROP TABLE main.\(table)") }
      try database.execute("DELETE FROM main.store_state WHERE name = '\(foldedSeqName)'")
    }
    return true
  }

  /// Why the rollups file cannot serve as it is, or nil when it can.
  private static func rebuildReason(_ database: Database, databaseId: Int64) throws(StoreError)
    -> String?
  {
    try database.read { () throws(StoreError) -> String? in
      let present = Set(try tableSchema(database, in: "rollups").map(\.table))
      guard present == Set(tables), try hasFoldState(database) else {
        return "the rollups file is new or incomplete"
      }
      let owner = try database.scalarInt(
        "SELECT value FROM rollups.fold_state WHERE name = '\(databaseIdName)'")
      guard owner == databaseId else { return "the rollups file belongs to another database" }
      let folded = try RollupFolder.foldedSeq(database)
      let stored = try database.newestEventSeq()
      guard folded <= stored else {
        return "the rollups file has folded events the events file does not have"
      }
      return nil
    }
  }

  private static func hasFoldState(_ database: Database) throws(StoreError) -> Bool {
    try database.hasTable("fold_state", in: "rollups")
  }

  /// A rollup table's `CREATE` statements: the table's, then its indexes'.
  struct TableSchema {
    let table: String
    let statements: [String]
  }

  /// The rollup tables in `schema` with their statements.
  private static func tableSchema(_ database: Database, in schema: String) throws(StoreError)
    -> [TableSchema]
  {
    let statement = try database.statement(
      """
      SELECT type, name, sql FROM \(schema).sqlite_master
      WHERE tbl_name = ? AND sql IS NOT NULL ORDER BY type = 'table' DESC, name
      """)
    var found: [TableSchema] = []
    for table in tables {
      try statement.bind(1, table)
      var statements: [String] = []
      while try statement.step() { statements.append(statement.string(2)) }
      statement.reset()
      if !statements.isEmpty { found.append(TableSchema(table: table, statements: statements)) }
    }
    return found
  }

  /// The rollup tables as the migrations make them, from a new database in
  /// memory: the one description of them, wherever they live.
  private static func freshSchema() throws(StoreError) -> [TableSchema] {
    let scratch = try Database(path: ":memory:", rollups: false)
    try Migrator.migrate(scratch)
    return try tableSchema(scratch, in: "main")
  }

  /// Empties the rollups file and creates `schema` in it, folded up to
  /// nothing. Call in a write transaction.
  private static func recreate(_ schema: [TableSchema], in database: Database, databaseId: Int64)
    throws(StoreError)
  {
    for table in tables + retiredTables {
      try database.execute("DROP TABLE IF EXISTS rollups.\(table)")
    }
    try database.execute("DROP TABLE IF EXISTS rollups.fold_state")
    for table in schema {
      for sql in table.statements { try database.execute(try qualified(sql)) }
    }
    try recordFoldState(database, databaseId: databaseId, foldedSeq: 0)
  }

  private static func isRefoldPending(_ database: Database) throws(StoreError) -> Bool {
    try database.scalarInt("SELECT value FROM main.store_state WHERE name = '\(refoldName)'")
      != nil
  }

  private static func clearRefold(_ database: Database) throws(StoreError) {
    try database.execute("DELETE FROM main.store_state WHERE name = '\(refoldName)'")
  }

  /// Records whose the rollups file is and, unless nil, how far it has
  /// folded. Call in a write transaction.
  private static func recordFoldState(
    _ database: Database, databaseId: Int64, foldedSeq: Int64?
  ) throws(StoreError) {
    try database.execute(
      """
      CREATE TABLE IF NOT EXISTS rollups.fold_state (
        name TEXT PRIMARY KEY, value INTEGER NOT NULL
      ) WITHOUT ROWID
      """)
    let record = try database.statement(
      "INSERT OR REPLACE INTO rollups.fold_state (name, value) VALUES (?, ?)")
    for (name, value) in [(databaseIdName, databaseId), (foldedSeqName, foldedSeq)] {
      guard let value else { continue }
      try record.bind(1, name)
      try record.bind(2, value)
      try record.run()
    }
  }

  /// A `CREATE TABLE t` or `CREATE INDEX i ON t` statement made to create
  /// in the rollups file: `rollups.` before the name it creates.
  static func qualified(_ sql: String) throws(StoreError) -> String {
    for prefix in ["CREATE TABLE ", "CREATE INDEX ", "CREATE UNIQUE INDEX "]
    where sql.hasPrefix(prefix) {
      return prefix + "rollups." + sql.dropFirst(prefix.count)
    }
    throw .migration(name: "rollups", message: "cannot place: \(sql.prefix(60))")
  }
}
