import Foundation
import UptakeCore
import UptakeStore

/// A one-box uptaked's database as `uptake migrate-to-clickhouse` reads
/// it: opened read-only, so that moving it into a cluster can never change
/// or empty it, and named by what never changes in it.
public final class OneBoxSource {
  /// One app with its key hashes (SHA-256, lowercase hex, as the cluster
  /// keeps them).
  public struct App: Sendable, Equatable {
    public let appNo: Int64
    public let appId: String
    public let ingestKeyHash: String
    public let readKeyHash: String
    public let createdMs: Int64
  }

  /// Why a database cannot be migrated.
  public enum Refusal: Error, CustomStringConvertible {
    case notOneBox(String)
    case store(StoreError)

    public var description: String {
      switch self {
      case .notOneBox(let message): message
      case .store(let error): error.description
      }
    }
  }

  public let database: Database
  /// Names the database in the cluster's progress record and in the ids
  /// of its events stored without one (`~sourceId:seq`): 16 hex digits of
  /// SHA-256 over when its schema was made, its first app and its first
  /// event, none of which a one box ever changes. A copy of the file (a
  /// backup) is the same source; two boxes started from one copied file
  /// differ by their first events.
  public let sourceId: String

  /// Opens the database at `path` read-only; refuses a node's spool,
  /// whose node ships it, and a file that is not an Uptake database.
  public init(path: String) throws(Refusal) {
    do {
      database = try Database(path: path, create: false, readOnly: true, rollups: false)
      let applied = Set(try Migrator.appliedMigrations(database))
      guard applied.contains("0001_initial"), applied.contains("0003_update_config") else {
        throw Refusal.notOneBox(
          "\(path) is not an uptaked database of this version or newer; start this build's"
            + " uptaked on it once")
      }
      if let newer = applied.subtracting(Migrator.knownMigrations).sorted().first {
        throw Refusal.notOneBox(
          "\(path) has migration \(newer), newer than this build; upgrade Uptake")
      }
      if applied.contains("0018_cluster_spool"),
        try database.scalarInt("SELECT count(*) FROM cluster_spool") ?? 0 > 0
      {
        throw Refusal.notOneBox(
          "\(path) is a node's spool, which its node ships to the cluster itself")
      }
      sourceId = try Self.identity(of: database)
    } catch let error as Refusal {
      throw error
    } catch let error as StoreError {
      throw .store(error)
    } catch {
      throw .notOneBox(String(describing: error))
    }
  }

  /// Every app, in the order they were made.
  public func apps() throws(StoreError) -> [App] {
    let statement = try database.statement(
      "SELECT app_no, app_id, ingest_key_hash, read_key_hash, created_at FROM apps ORDER BY app_no")
    defer { statement.reset() }
    var apps: [App] = []
    while try statement.step() {
      apps.append(
        App(
          appNo: statement.int64(0), appId: statement.string(1),
          ingestKeyHash: Hex.encode(statement.blob(2)), readKeyHash: Hex.encode(statement.blob(3)),
          createdMs: statement.int64(4)))
    }
    return apps
  }

  /// Every version of `app`'s update configuration, oldest first, as the
  /// cluster keeps them.
  public func configurations(of app: App) throws(StoreError) -> [ClusterUpdateConfigs.Record] {
    try UpdateConfigStore.history(appNo: app.appNo, in: database).map {
      ClusterUpdateConfigs.Record(
        appId: app.appId, version: $0.version, createdMs: $0.createdAtMs,
        document: $0.documentText)
    }
  }

  /// How many events are stored after `seq`.
  public func eventCount(after seq: Int64) throws(StoreError) -> Int64 {
    let statement = try database.statement("SELECT count(*) FROM events WHERE seq > ?")
    defer { statement.reset() }
    try statement.bind(1, seq)
    return try statement.step() ? statement.int64(0) : 0
  }

  private static func identity(of database: Database) throws(StoreError) -> String {
    try database.read { () throws(StoreError) -> String in
      var material = ""
      let parts = [
        "SELECT name || ':' || applied_at FROM schema_migrations ORDER BY name LIMIT 1",
        "SELECT app_id || ':' || created_at FROM apps ORDER BY app_no LIMIT 1",
        "SELECT seq || ':' || ts || ':' || received_at || ':' || update_id FROM events"
          + " ORDER BY seq LIMIT 1",
      ]
      for sql in parts {
        let statement = try database.statement(sql)
        defer { statement.reset() }
        material += (try statement.step() ? statement.string(0) : "") + "\n"
      }
      return String(Hex.encode(KeyToken.hash(material)).prefix(16))
    }
  }
}
