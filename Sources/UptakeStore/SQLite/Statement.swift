import CSQLite

/// A prepared statement, finalized in `deinit`. Indexes are 1-based for
/// parameters and 0-based for columns, as in SQLite's C API.
public final class Statement {
  let handle: OpaquePointer
  unowned let database: Database
  public let sql: String

  init(database: Database, sql: String) throws(StoreError) {
    var handle: OpaquePointer?
    let code = sqlite3_prepare_v3(
      database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
    guard code == SQLITE_OK, let handle else {
      throw .sqlite(code: code, message: String(cString: sqlite3_errmsg(database.handle)), sql: sql)
    }
    self.handle = handle
    self.database = database
    self.sql = sql
  }

  deinit { sqlite3_finalize(handle) }

  /// Clears the previous run's state and bindings.
  public func reset() {
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
  }

  public func bind(_ index: Int32, _ value: Int64) throws(StoreError) {
    try check(sqlite3_bind_int64(handle, index, value))
  }

  public func bind(_ index: Int32, _ value: Int) throws(StoreError) {
    try bind(index, Int64(value))
  }

  public func bind(_ index: Int32, _ value: String) throws(StoreError) {
    var value = value
    let code = value.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) { chars in
        // An empty buffer may have no address; SQLite wants a non-null
        // pointer for an empty (not NULL) text value.
        guard let base = chars.baseAddress else {
          return sqlite3_bind_text(handle, index, "", 0, uptake_sqlite_transient())
        }
        return sqlite3_bind_text(handle, index, base, Int32(chars.count), uptake_sqlite_transient())
      }
    }
    try check(code)
  }

  /// Binds text, or NULL for nil. SQLite copies the text, so the String
  /// need not outlive the call, and each binding frees the value it
  /// replaces. `run()` keeps a statement's bindings for its next run;
  /// `reset()` clears them.
  public func bind(_ index: Int32, _ value: String?) throws(StoreError) {
    if let value { try bind(index, value) } else { try bindNull(index) }
  }

  public func bind(_ index: Int32, _ value: Int64?) throws(StoreError) {
    if let value { try bind(index, value) } else { try bindNull(index) }
  }

  public func bind(_ index: Int32, _ value: [UInt8]) throws(StoreError) {
    try bind(index, value[...])
  }

  /// Binds a blob; SQLite copies the bytes.
  public func bind(_ index: Int32, _ value: ArraySlice<UInt8>) throws(StoreError) {
    // An empty array has no base address, and a NULL pointer binds NULL.
    guard !value.isEmpty else {
      try check(sqlite3_bind_zeroblob(handle, index, 0))
      return
    }
    let code = value.withUnsafeBytes { bytes in
      sqlite3_bind_blob(
        handle, index, bytes.baseAddress, Int32(bytes.count), uptake_sqlite_transient())
    }
    try check(code)
  }

  public func bindNull(_ index: Int32) throws(StoreError) {
    try check(sqlite3_bind_null(handle, index))
  }

  /// Advances to the next row; false when the statement is done.
  @discardableResult
  public func step() throws(StoreError) -> Bool {
    let code = sqlite3_step(handle)
    switch code {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default:
      throw .sqlite(code: code, message: String(cString: sqlite3_errmsg(database.handle)), sql: sql)
    }
  }

  /// Runs a statement that returns no rows, then resets it for reuse.
  public func run() throws(StoreError) {
    defer { sqlite3_reset(handle) }
    try step()
  }

  public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

  public func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

  public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

  public func string(_ column: Int32) -> String {
    guard let text = sqlite3_column_text(handle, column) else { return "" }
    let count = Int(sqlite3_column_bytes(handle, column))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }

  /// The column's text as bytes, valid only inside `body`: lets a fold
  /// look a value up without building a String for every row.
  public func withText<Result>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> Result)
    -> Result
  {
    let text = sqlite3_column_text(handle, column)
    let count = text == nil ? 0 : Int(sqlite3_column_bytes(handle, column))
    return body(UnsafeBufferPointer(start: text, count: count))
  }

  public func optionalString(_ column: Int32) -> String? {
    isNull(column) ? nil : string(column)
  }

  public func blob(_ column: Int32) -> [UInt8] {
    let count = Int(sqlite3_column_bytes(handle, column))
    guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
    return Array(UnsafeRawBufferPointer(start: bytes, count: count))
  }

  /// The column's blob, valid only inside `body`: no copy of a row's bytes.
  func withBlob<Result>(_ column: Int32, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    let bytes = sqlite3_column_blob(handle, column)
    let count = bytes == nil ? 0 : Int(sqlite3_column_bytes(handle, column))
    return body(UnsafeRawBufferPointer(start: bytes, count: count))
  }

  func check(_ code: Int32) throws(StoreError) {
    guard code == SQLITE_OK else {
      throw .sqlite(code: code, message: String(cString: sqlite3_errmsg(database.handle)), sql: sql)
    }
  }
}
