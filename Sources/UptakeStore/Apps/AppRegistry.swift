import UptakeCore

/// Creates, lists and rotates apps and their keys.
public enum AppRegistry {
  /// The app every fresh database starts with.
  public static let defaultAppId = "default"

  /// Creates an app with fresh keys. Throws `.conflict` when it exists.
  public static func add(_ appId: String, in database: Database, nowMs: Int64) throws(StoreError)
    -> NewAppKeys
  {
    guard AppID.isValid(appId) else {
      throw .conflict(
        "invalid app id \"\(appId)\": use 1-63 of a-z, 0-9 and -, starting with a letter or digit")
    }
    let ingestKey = KeyToken.generate(.ingest)
    let readKey = KeyToken.generate(.read)
    try database.write { () throws(StoreError) in
      if try find(appId, in: database) != nil { throw .conflict("app \"\(appId)\" already exists") }
      let insert = try database.statement(
        "INSERT INTO apps (app_id, ingest_key_hash, read_key_hash, created_at) VALUES (?, ?, ?, ?)")
      try insert.bind(1, appId)
      try insert.bind(2, KeyToken.hash(ingestKey))
      try insert.bind(3, KeyToken.hash(readKey))
      try insert.bind(4, nowMs)
      try insert.run()
    }
    return NewAppKeys(appId: appId, ingestKey: ingestKey, readKey: readKey)
  }

  /// Creates the default app when the database has no app at all; returns
  /// its keys then, nil otherwise.
  public static func addDefaultIfEmpty(in database: Database, nowMs: Int64) throws(StoreError)
    -> NewAppKeys?
  {
    guard try list(in: database).isEmpty else { return nil }
    do {
      return try add(defaultAppId, in: database, nowMs: nowMs)
    } catch .conflict {
      return nil  // another process created it first
    }
  }

  public static func list(in database: Database) throws(StoreError) -> [AppRecord] {
    let statement = try database.statement(
      "SELECT app_no, app_id, created_at FROM apps ORDER BY app_id")
    var apps: [AppRecord] = []
    while try statement.step() {
      apps.append(
        AppRecord(
          appNo: statement.int64(0), appId: statement.string(1), createdAtMs: statement.int64(2)))
    }
    return apps
  }

  public static func find(_ appId: String, in database: Database) throws(StoreError) -> AppRecord? {
    let statement = try database.statement(
      "SELECT app_no, app_id, created_at FROM apps WHERE app_id = ?")
    try statement.bind(1, appId)
    defer { statement.reset() }
    guard try statement.step() else { return nil }
    return AppRecord(
      appNo: statement.int64(0), appId: statement.string(1), createdAtMs: statement.int64(2))
  }

  /// Replaces one of the app's keys; the old key stops working at once.
  public static func rotate(_ appId: String, kind: KeyKind, in database: Database)
    throws(StoreError)
    -> String
  {
    let key = KeyToken.generate(kind)
    let column = kind == .ingest ? "ingest_key_hash" : "read_key_hash"
    try database.write { () throws(StoreError) in
      let update = try database.statement("UPDATE apps SET \(column) = ? WHERE app_id = ?")
      try update.bind(1, KeyToken.hash(key))
      try update.bind(2, appId)
      try update.run()
      if database.changes == 0 { throw .notFound("app \"\(appId)\"") }
    }
    return key
  }

  /// Every key hash with the app and kind it names.
  static func keyHashes(in database: Database) throws(StoreError) -> [(
    hash: [UInt8], app: AppRecord, kind: KeyKind
  )] {
    let statement = try database.statement(
      "SELECT app_no, app_id, created_at, ingest_key_hash, read_key_hash FROM apps")
    var keys: [(hash: [UInt8], app: AppRecord, kind: KeyKind)] = []
    while try statement.step() {
      let app = AppRecord(
        appNo: statement.int64(0), appId: statement.string(1), createdAtMs: statement.int64(2))
      keys.append((statement.blob(3), app, .ingest))
      keys.append((statement.blob(4), app, .read))
    }
    return keys
  }
}
