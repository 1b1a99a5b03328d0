import UptakeCore
import UptakeStore

/// `uptake apps add` and `apps rotate` against a cluster: the change is
/// written to every server (`ClusterApps.write`), and every node takes it
/// into its own table within `ShippingThread.appsSyncSeconds`.
public enum ClusterAppAdmin {
  /// Why a change was not made.
  public enum Failure: Error, CustomStringConvertible {
    case conflict(String)
    case notFound(String)
    case cluster(ClickHouseError)

    public var description: String {
      switch self {
      case .conflict(let message), .notFound(let message): message
      case .cluster(let error): error.description
      }
    }
  }

  /// Creates an app with fresh keys in the cluster.
  public static func add(_ appId: String, to layout: ClusterLayout, nowMs: Int64)
    throws(Failure) -> NewAppKeys
  {
    guard AppID.isValid(appId) else {
      throw .conflict(
        "invalid app id \"\(appId)\": use 1-63 of a-z, 0-9 and -, starting with a letter or digit")
    }
    if try find(appId, in: layout) != nil {
      throw .conflict("app \"\(appId)\" already exists in the cluster")
    }
    let keys = NewAppKeys(
      appId: appId, ingestKey: KeyToken.generate(.ingest), readKey: KeyToken.generate(.read))
    try write(
      ClusterApps.Record(
        appId: appId, ingestKeyHash: hash(keys.ingestKey), readKeyHash: hash(keys.readKey),
        createdMs: nowMs, version: UInt64(max(0, nowMs))), to: layout)
    return keys
  }

  /// Replaces one of the app's keys; the old one stops working on every
  /// node at its next sync.
  public static func rotate(
    _ appId: String, kind: KeyKind, in layout: ClusterLayout, nowMs: Int64
  ) throws(Failure) -> String {
    guard let record = try find(appId, in: layout) else {
      throw .notFound("app \"\(appId)\" not found in the cluster")
    }
    let key = KeyToken.generate(kind)
    // Newer than the version it replaces even if this machine's clock is
    // behind the one that wrote it.
    let version = max(UInt64(max(0, nowMs)), record.version + 1)
    try write(
      ClusterApps.Record(
        appId: appId,
        ingestKeyHash: kind == .ingest ? hash(key) : record.ingestKeyHash,
        readKeyHash: kind == .read ? hash(key) : record.readKeyHash,
        createdMs: record.createdMs, version: version), to: layout)
    return key
  }

  /// What `adopt` did with an app.
  public enum Adoption: Sendable, Equatable {
    case added, alreadyThere, keysReplaced
  }

  /// Puts an app made elsewhere (in a one-box database moving into the
  /// cluster) into the cluster with the keys it has, so its clients keep
  /// working. An app the cluster holds with the same keys is left as it
  /// is. One it holds with other keys is a conflict, unless
  /// `replacingKeys`: then it takes these, and its own stop working.
  public static func adopt(
    _ appId: String, ingestKeyHash: String, readKeyHash: String, createdMs: Int64,
    replacingKeys: Bool, in layout: ClusterLayout, nowMs: Int64
  ) throws(Failure) -> Adoption {
    let held = try find(appId, in: layout)
    if let held, held.ingestKeyHash == ingestKeyHash, held.readKeyHash == readKeyHash {
      return .alreadyThere
    }
    if held != nil && !replacingKeys {
      throw .conflict(
        "app \"\(appId)\" is in the cluster already with other keys (a node's first start makes"
          + " an app \"default\" of its own); --replace-keys gives it the keys it has here, and"
          + " the cluster's keys for it stop working")
    }
    try write(
      ClusterApps.Record(
        appId: appId, ingestKeyHash: ingestKeyHash, readKeyHash: readKeyHash,
        createdMs: held?.createdMs ?? createdMs,
        // Newer than the version it replaces, as in `rotate`.
        version: max(UInt64(max(0, nowMs)), (held?.version ?? 0) + 1)), to: layout)
    return held == nil ? .added : .keysReplaced
  }

  /// Every app of the cluster, by app id.
  public static func list(_ layout: ClusterLayout) throws(Failure) -> [ClusterApps.Record] {
    do {
      return try ClusterApps.read(layout)
    } catch {
      throw .cluster(error)
    }
  }

  private static func find(_ appId: String, in layout: ClusterLayout) throws(Failure)
    -> ClusterApps.Record?
  {
    try list(layout).first { $0.appId == appId }
  }

  private static func write(_ record: ClusterApps.Record, to layout: ClusterLayout)
    throws(Failure)
  {
    do {
      try ClusterApps.write(record, to: layout)
    } catch {
      throw .cluster(error)
    }
  }

  private static func hash(_ key: String) -> String {
    Hex.encode(KeyToken.hash(key))
  }
}
