import CSQLite
import Foundation

/// One SQLite connection. It owns its handle, closes it in `deinit`, and must
/// be used by one thread at a time: the batch writer owns one, every reader
/// takes one from a `ConnectionPool`.
public final class Database {
  let handle: OpaquePointer
  public let path: String
  private var statementCache: [String: Statement] = [:]

  /// Whether the rollups file is attached as `rollups` (`RollupsFile`).
  public let hasRollups: Bool
  /// How the last `Migrator.migrate` on this connection found the rollups
  /// file.
  public internal(set) var rollupsPlacement: RollupsFile.Placement?
  /// True when opening found the rollups file stale and deleted it
  /// (`UnsyncedRollups`): `RollupsFile.place` then says why it rebuilds.
  var discardedStaleRollups = false
  /// What a write transaction locks when it begins.
  var writeLock = WriteLock.allFiles

  enum WriteLock {
    /// `BEGIN IMMEDIATE`: every attached file, at once.
    case allFiles
    /// Only the events file, at once: the daemon's batch writer, beside
    /// the fold thread.
    case eventsFile
    /// Only the rollups file, at once; the events file is only read. The
    /// daemon's fold thread writes this way, so its long transactions never
    /// hold up the inserts.
    case rollupsFile
  }

  /// Opens (creating it when `create` is true) the file at `path` and applies
  /// the pragmas every connection needs. With `rollups` the rollups file
  /// beside it (`rollupsPath(for:)`) is attached too, and created when
  /// missing: its contents are derived from the events (`RollupsFile`).
  public init(path: String, create: Bool = true, readOnly: Bool = false, rollups: Bool = true)
    throws(StoreError)
  {
    _ = Self.memoryStatisticsOff
    var handle: OpaquePointer?
    var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
    if readOnly {
      flags |= SQLITE_OPEN_READONLY
    } else {
      flags |= SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
      if create { Self.createOwnerOnly(path) }
    }
    let code = sqlite3_open_v2(path, &handle, flags, nil)
    guard code == SQLITE_OK, let handle else {
      let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close_v2(handle)
      throw .sqlite(code: code, message: message, sql: nil)
    }
    self.handle = handle
    self.path = path
    hasRollups = rollups && path != ":memory:"
    try configure(readOnly: readOnly)
    if hasRollups { try attachRollups(readOnly: readOnly) }
  }

  /// Makes the file at `path`, when there is none, empty (an empty
  /// database to SQLite) and for its owner alone: 0600. SQLite would make
  /// it 0644 less the umask, and gives its -wal and -shm files the mode of
  /// the file they belong to, as `attachRollups` gives the rollups file:
  /// made here, every one of them keeps the install ids and key hashes to
  /// the owner, whatever the umask of whoever starts first. A file that
  /// exists keeps the mode its operator gave it (0640 for a backup group).
  static func createOwnerOnly(_ path: String) {
    guard path != ":memory:", !path.isEmpty, !path.hasPrefix("file:") else { return }
    let file = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    // There already, or SQLite will say why it cannot be opened.
    guard file >= 0 else { return }
    // The umask can only have taken bits away, and SQLite needs both.
    _ = fchmod(file, 0o600)
    Glibc.close(file)
  }

  /// Debian's SQLite keeps memory statistics, which takes one mutex of the
  /// whole process on every allocation, and built without lookaside it
  /// allocates for nearly every row: the writer, the fold thread and the
  /// readers queued on it. Turned off before the first connection opens
  /// (a `static let` runs once); Uptake never reads the statistics, and
  /// the mutex slowed batches (docs/performance.md).
  private static let memoryStatisticsOff: Int32 = uptake_sqlite_disable_memory_statistics()

  /// The rollups file of the database at `path`.
  public static func rollupsPath(for path: String) -> String { path + "-rollups" }

  /// Page cache of the rollups file per connection, beside the events
  /// file's `cache_size`.
  static let rollupsCacheKiB = 32 * 1024

  private func attachRollups(readOnly: Bool) throws(StoreError) {
    let rollupsPath = Self.rollupsPath(for: path)
    // An attached file opens with the connection's flags, so a connection
    // that may not create its events file cannot create this one either;
    // an empty file is an empty database, made here when it is missing.
    if !readOnly {
      discardedStaleRollups = try UnsyncedRollups.discardIfStale(self, rollupsPath: rollupsPath)
      let file = open(rollupsPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
      if file >= 0 {
        // A new file takes the events file's owner and mode, as SQLite
        // gives its own -wal and -shm files: a command run as root must
        // not leave the daemon's user a file it cannot write.
        var events = stat()
        if stat(path, &events) == 0 {
          _ = fchown(file, events.st_uid, events.st_gid)
          _ = fchmod(file, events.st_mode & 0o777)
        }
        Glibc.close(file)
      }
    }
    let attach = try Statement(database: self, sql: "ATTACH DATABASE ? AS rollups")
    try attach.bind(1, rollupsPath)
    try attach.run()
    if !readOnly { try enableWriteAheadLog(schema: "rollups") }
    // A lost rollups commit is folded again from the events, which are
    // synced at every commit: syncing the rollups at checkpoints only is
    // enough, and keeps an fsync off every fold. The daemon's fold does not
    // sync at all (`UnsyncedRollups`).
    try execute("PRAGMA rollups.synchronous = NORMAL")
    try execute("PRAGMA rollups.cache_size = -\(Self.rollupsCacheKiB)")
    try execute("PRAGMA rollups.journal_size_limit = \(Self.walSizeLimitBytes)")
  }

  private var isClosed = false

  /// Closes the connection now, not when its last reference goes: another
  /// thread may hold one a moment past its end, and a process that exits
  /// first (`uptake import`) leaves the connection open and its log files
  /// behind. Nothing may use the connection after, and statements taken
  /// from it must be gone, or SQLite closes it only when they are.
  public func close() {
    guard !isClosed else { return }
    isClosed = true
    statementCache.removeAll()
    sqlite3_close_v2(handle)
  }

  deinit { close() }

  /// How long a connection waits for another's lock before SQLITE_BUSY.
  static let busyTimeoutMilliseconds: Int32 = 5000

  private func configure(readOnly: Bool) throws(StoreError) {
    // A writer holding the lock (the daemon's batch writer, an import) blocks
    // others only for one transaction; waiting 5 s rides that out instead of
    // failing a CLI command or a report with SQLITE_BUSY.
    try check(sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds), sql: nil)
    try check(SQLFunctions.register(handle), sql: nil)
    // WAL lets reports read while the writer commits, and turns each commit
    // into one sequential append. The mode is stored in the file, so only the
    // first open of a new file switches it; a read-only connection cannot,
    // and reads a file in whatever mode it is (a copy of a backup may not
    // be in WAL).
    if !readOnly { try enableWriteAheadLog() }
    // In WAL mode NORMAL still never corrupts the database; it syncs at
    // checkpoints rather than at every commit. We need FULL: a 200 on ingest
    // promises the events survive a power cut, so each commit is fsynced.
    try execute("PRAGMA synchronous = FULL")
    // The schema uses no foreign keys; keep the check off explicitly so an
    // accidental REFERENCES clause cannot slow the ingest path.
    try execute("PRAGMA foreign_keys = OFF")
    // 32 MiB of page cache by default keeps the hot B-tree pages (the end of
    // events, the dedup index's inner pages) in memory; the daemon's
    // long-lived connections (the batch writer's, the fold's, the report
    // pool's) set smaller caches of their own to stay inside its memory bar.
    try execute("PRAGMA cache_size = -32768")
    // Sorts and temporary B-trees (GROUP BY, count(DISTINCT)) spill to
    // temporary files past the page cache instead of growing in memory,
    // where one report over raw events took the daemon far past its memory
    // bar (docs/performance.md).
    try execute("PRAGMA temp_store = FILE")
    // When the log is rewound, cut the file back to 16 MiB: a burst that grew
    // it (see WALCheckpointSchedule) should not keep its disk space forever.
    try execute("PRAGMA journal_size_limit = \(Self.walSizeLimitBytes)")
  }

  /// Bytes a page of a new file (SQLite's default is 4096). Every commit
  /// writes its pages to the log with a system call each, and every
  /// checkpoint copies them again one by one; the fold's B-trees get one
  /// level less, and batches ran faster at the same memory (caches are
  /// sized in bytes; docs/performance.md). tools/sqlite-ceiling takes the
  /// same size, so the ceiling the bench divides by gains as much.
  static let pageSize = 16384

  /// The size the write-ahead log file is cut back to when it is rewound.
  static let walSizeLimitBytes = 16 << 20

  /// The size of this database's write-ahead log file; 0 when there is none.
  public var walBytes: Int { Self.walBytes(ofDatabaseAt: path) }

  /// The size of the rollups file's write-ahead log; 0 when there is none.
  public var rollupsWALBytes: Int { Self.walBytes(ofDatabaseAt: Self.rollupsPath(for: path)) }

  /// The size of the write-ahead log of the database file at `path`; 0 when
  /// there is none (after a clean stop, or before the first write).
  public static func walBytes(ofDatabaseAt path: String) -> Int {
    var status = stat()
    guard stat(path + "-wal", &status) == 0 else { return 0 }
    return Int(status.st_size)
  }

  /// Has SQLite's automatic checkpoint run once the events file's log
  /// holds `bytes`. SQLite counts the threshold in pages, so it is
  /// computed from the file's own page size: a count written for 4 KiB
  /// pages lets a file of `pageSize` pages grow a log 4 times as long.
  public func autoCheckpoint(afterBytes bytes: Int) throws(StoreError) {
    let pageBytes = try scalarInt("PRAGMA main.page_size") ?? Int64(Self.pageSize)
    try execute("PRAGMA main.wal_autocheckpoint = \(max(1, Int64(bytes) / pageBytes))")
  }

  /// Copies into the database file what no reader's snapshot still needs,
  /// without waiting; returns the frames left uncopied.
  public func backfillWriteAheadLog(schema: String = "main") throws(StoreError) -> Int32 {
    var logFrames: Int32 = 0
    var copiedFrames: Int32 = 0
    let code = sqlite3_wal_checkpoint_v2(
      handle, schema, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &copiedFrames)
    try check(code, sql: "PRAGMA wal_checkpoint(PASSIVE)")
    return max(0, logFrames - copiedFrames)
  }

  /// Copies the whole log into the database file and rewinds it, without
  /// waiting: returns false at once when a reader still uses the log (the
  /// pages it could copy are copied anyway). The next commit writes from
  /// the log's start and cuts the file back to `walSizeLimitBytes`. A
  /// TRUNCATE here shrank the file while new reports waited at the gate
  /// (docs/performance.md); the commit's cut happens with the gate open.
  public func restartWriteAheadLog(schema: String = "main") throws(StoreError) -> Bool {
    try check(sqlite3_busy_timeout(handle, 0), sql: nil)
    defer { sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds) }
    let code = sqlite3_wal_checkpoint_v2(handle, schema, SQLITE_CHECKPOINT_RESTART, nil, nil)
    if code & 0xFF == SQLITE_BUSY { return false }
    try check(code, sql: "PRAGMA wal_checkpoint(RESTART)")
    return true
  }

  /// Copies the whole log into the database file, syncing both as the
  /// connection's `synchronous` asks, and truncates it, waiting for
  /// readers as long as the busy timeout allows: true when it finished.
  public func truncateWriteAheadLog(schema: String = "main") throws(StoreError) -> Bool {
    let code = sqlite3_wal_checkpoint_v2(handle, schema, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
    if code & 0xFF == SQLITE_BUSY { return false }
    try check(code, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
    return true
  }

  /// Switches a new file to WAL. The switch needs an exclusive lock and
  /// SQLite answers SQLITE_BUSY at once, without the busy handler, while
  /// another connection is opening the same new file (two processes starting
  /// together: a daemon and a CLI command). Retry for as long as the busy
  /// timeout would wait.
  private func enableWriteAheadLog(schema: String = "main") throws(StoreError) {
    let deadline = Date().addingTimeInterval(5)
    while true {
      if try journalMode(schema: schema) == "wal" { return }
      do {
        // Takes effect on a new, empty file only, as the mode does; older
        // files keep their pages.
        try execute("PRAGMA \(schema).page_size = \(Self.pageSize)")
        try execute("PRAGMA \(schema).journal_mode = WAL")
        return
      } catch .sqlite(let code, _, _) where code & 0xFF == SQLITE_BUSY && Date() < deadline {
        usleep(10_000)
      }
    }
  }

  private func journalMode(schema: String) throws(StoreError) -> String {
    let statement = try Statement(database: self, sql: "PRAGMA \(schema).journal_mode")
    guard try statement.step() else { return "" }
    return statement.string(0)
  }

  /// Caps this connection's writes at a file of `bytes` (whole pages): past
  /// it a write fails with SQLITE_FULL, exactly as on a full disk. SQLite
  /// never sets the cap below the current size, so a file that is already
  /// larger takes no more growth but can still reuse its free pages.
  public func limitSize(toBytes bytes: Int64, schema: String = "main") throws(StoreError) {
    let pageSize = try scalarInt("PRAGMA \(schema).page_size") ?? 4096
    try execute("PRAGMA \(schema).max_page_count = \(max(1, bytes / pageSize))")
  }

  /// Runs `body` with a time limit: once `seconds` have passed, the statement
  /// running fails with SQLITE_INTERRUPT. Reports use it, because a read
  /// transaction holds its snapshot in the write-ahead log, and the log can
  /// only be rewound once the longest of them ends (WALCheckpointSchedule).
  public func withTimeLimit<T>(seconds: Double, _ body: () throws(StoreError) -> T)
    throws(StoreError) -> T
  {
    let deadline = Deadline(
      uptimeNs: DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, seconds) * 1e9))
    let outer = timeLimitNs
    timeLimitNs = deadline.uptimeNs
    defer { timeLimitNs = outer }
    let context = Unmanaged.passRetained(deadline)
    // Checked every 1000 virtual-machine steps, a few microseconds apart.
    sqlite3_progress_handler(
      handle, 1000,
      { context in
        guard let context else { return 0 }
        let deadline = Unmanaged<Deadline>.fromOpaque(context).takeUnretainedValue()
        return DispatchTime.now().uptimeNanoseconds >= deadline.uptimeNs ? 1 : 0
      }, context.toOpaque())
    defer {
      sqlite3_progress_handler(handle, 0, nil, nil)
      context.release()
    }
    return try body()
  }

  /// When the time limit of `withTimeLimit` running now ends, in uptime
  /// nanoseconds; nil outside one.
  private var timeLimitNs: UInt64?

  /// Fails as an interrupted statement does once the running time limit
  /// has passed: for the work a report does in Swift between and after its
  /// statements, which SQLite's progress handler does not see.
  public func checkTimeLimit() throws(StoreError) {
    guard let timeLimitNs, DispatchTime.now().uptimeNanoseconds >= timeLimitNs else { return }
    throw .sqlite(code: SQLITE_INTERRUPT, message: "interrupted", sql: nil)
  }

  /// Runs SQL that returns no rows (may hold several statements).
  public func execute(_ sql: String) throws(StoreError) {
    var errorMessage: UnsafeMutablePointer<CChar>?
    let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
    if code != SQLITE_OK {
      let message =
        errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
      sqlite3_free(errorMessage)
      throw .sqlite(code: code, message: message, sql: sql)
    }
  }

  /// A prepared statement for `sql`, prepared once per connection and reused.
  public func statement(_ sql: String) throws(StoreError) -> Statement {
    if let cached = statementCache[sql] {
      cached.reset()
      return cached
    }
    let statement = try Statement(database: self, sql: sql)
    statementCache[sql] = statement
    return statement
  }

  /// Runs `body` in a transaction that takes its write lock at once (of
  /// every file, or of the one `writeLock` names), so a busy database fails
  /// here rather than halfway through.
  public func write<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
    let lock: String
    switch writeLock {
    case .allFiles:
      return try transaction(begin: "BEGIN IMMEDIATE", body)
    case .eventsFile:
      lock = "UPDATE main.store_state SET value = value WHERE 0"
    case .rollupsFile:
      lock = "UPDATE rollups.fold_state SET value = value WHERE 0"
    }
    // A write statement takes its file's write lock when it starts, even
    // one that changes nothing; the other file's snapshot, if it is read,
    // is taken by its first read. Prepared once: it runs every commit.
    return try transaction(begin: "BEGIN") { () throws(StoreError) -> T in
      try statement(lock).run()
      return try body()
    }
  }

  /// Runs `body` in a read transaction, so every query sees one snapshot.
  public func read<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
    try transaction(begin: "BEGIN", body)
  }

  private func transaction<T>(begin: String, _ body: () throws(StoreError) -> T)
    throws(StoreError) -> T
  {
    try execute(begin)
    defer { resetActiveStatements() }
    do {
      let result = try body()
      try execute("COMMIT")
      return result
    } catch {
      rollbackQuietly()
      throw error
    }
  }

  /// Ends a failed transaction. A ROLLBACK can itself fail (the transaction
  /// may already be gone after a disk-full error); that changes nothing for
  /// the caller, who reports the original error.
  func rollbackQuietly() {
    if sqlite3_get_autocommit(handle) == 0 {
      sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
    }
  }

  /// The rowid of the last row inserted on this connection.
  public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

  /// Resets every statement left part-way through its rows. A statement
  /// stopped on a row keeps the connection's read snapshot open even after
  /// COMMIT; the next BEGIN IMMEDIATE would then fail with
  /// SQLITE_BUSY_SNAPSHOT once another connection has written, and no
  /// checkpoint could pass that snapshot.
  func resetActiveStatements() {
    for statement in statementCache.values where sqlite3_stmt_busy(statement.handle) != 0 {
      sqlite3_reset(statement.handle)
    }
  }

  /// Rows changed by the last statement.
  public var changes: Int { Int(sqlite3_changes(handle)) }

  /// A single integer from a query such as `PRAGMA data_version`.
  public func scalarInt(_ sql: String) throws(StoreError) -> Int64? {
    let statement = try statement(sql)
    defer { statement.reset() }
    guard try statement.step() else { return nil }
    return statement.isNull(0) ? nil : statement.int64(0)
  }

  /// True when `schema` (main, rollups) has a table named `table`.
  func hasTable(_ table: String, in schema: String) throws(StoreError) -> Bool {
    let statement = try statement(
      "SELECT 1 FROM \(schema).sqlite_master WHERE type = 'table' AND name = ?")
    defer { statement.reset() }
    try statement.bind(1, table)
    return try statement.step()
  }

  func check(_ code: Int32, sql: String?) throws(StoreError) {
    guard code == SQLITE_OK || code == SQLITE_DONE || code == SQLITE_ROW else {
      throw .sqlite(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
  }
}

/// The moment a time-limited body must end, for SQLite's progress handler.
private final class Deadline {
  let uptimeNs: UInt64

  init(uptimeNs: UInt64) {
    self.uptimeNs = uptimeNs
  }
}
