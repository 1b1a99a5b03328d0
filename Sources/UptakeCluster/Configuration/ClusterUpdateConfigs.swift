import Foundation
import UptakeCore

/// Update configurations in the cluster, every version of every app's on
/// every server, as apps are (`ClusterApps`): a put writes to every
/// server that answers, and a read takes the union of what the servers
/// hold, writing back to a server what it missed.
public enum ClusterUpdateConfigs {
  /// One version of one app's configuration.
  public struct Record: Sendable, Equatable {
    public let appId: String
    public let version: Int64
    public let createdMs: Int64
    /// The validated document exactly as it was put.
    public let document: String

    public init(appId: String, version: Int64, createdMs: Int64, document: String) {
      self.appId = appId
      self.version = version
      self.createdMs = createdMs
      self.document = document
    }

    /// The document read again. Nil only when it no longer passes this
    /// build's validation, as for one box's `StoredUpdateConfiguration`.
    public var configuration: UpdateConfiguration? {
      try? UpdateConfigurationDecoder.decode(Array(document.utf8)).get()
    }
  }

  /// Every version of one app's configuration, oldest first (the last is
  /// live), from every server that answers, as `read` takes them. Throws
  /// when no server answers.
  public static func versions(of appId: String, in layout: ClusterLayout)
    throws(ClickHouseError) -> [Record]
  {
    try read(layout, after: [:]).filter { $0.appId == appId }
  }

  /// Stores `document` as the app's next version on every server; returns
  /// the version. Throws when no server took it.
  @discardableResult
  public static func put(
    appId: String, document: String, in layout: ClusterLayout, nowMs: Int64
  ) throws(ClickHouseError) -> Int64 {
    let latest = try latestVersions(layout)[appId]
    let record = Record(
      appId: appId, version: (latest ?? 0) + 1, createdMs: nowMs, document: document)
    try publish([record], to: layout, nowMs: nowMs)
    return record.version
  }

  /// The highest version of each app's configuration on any server that
  /// answers: what a node compares with its own every few seconds, before
  /// it reads any document. Throws when no server answers.
  public static func latestVersions(_ layout: ClusterLayout) throws(ClickHouseError)
    -> [String: Int64]
  {
    let answers = try layout.fromEveryServer { server throws(ClickHouseError) in
      try server.execute(
        "SELECT app_id, max(version) FROM \(layout.database).update_configs GROUP BY app_id")
    }
    var latest: [String: Int64] = [:]
    for fields in answers.flatMap({ TabSeparatedRows.parse($0.answer) }) {
      guard fields.count == 2, let version = Int64(fields[1]) else { continue }
      latest[fields[0]] = max(latest[fields[0]] ?? 0, version)
    }
    return latest
  }

  /// Writes `records` (versions a node holds and the cluster lacks) to
  /// every server that answers; throws when none took them.
  public static func publish(_ records: [Record], to layout: ClusterLayout, nowMs: Int64)
    throws(ClickHouseError)
  {
    guard !records.isEmpty else { return }
    try layout.onEveryServer { server throws(ClickHouseError) in
      try insert(records, into: server, layout, nowMs: nowMs)
    }
  }

  /// The versions above `after[appId]` (every version of an app not in
  /// it), from every server that answers, app by app and version by
  /// version; a server lacking one of them is given it. Throws when no
  /// server answers.
  public static func read(_ layout: ClusterLayout, after known: [String: Int64])
    throws(ClickHouseError) -> [Record]
  {
    let held = try layout.fromEveryServer { server throws(ClickHouseError) in
      // Hex, so a document's tabs and newlines need no unescaping.
      let text = try server.execute(
        """
        SELECT app_id, version, created_ms, hex(document)
        FROM \(layout.database).update_configs FINAL FORMAT TabSeparated
        """)
      let records = parse(text).filter { $0.version > known[$0.appId] ?? 0 }
      return Dictionary(records.map { (Key($0), $0) }) { $1 }
    }
    var union: [Key: Record] = [:]
    for (_, records) in held { union.merge(records) { first, _ in first } }
    for (server, records) in held {
      let missing = union.filter { records[$0.key] == nil }.map(\.value)
      // A repair that fails is tried again by the next read.
      if !missing.isEmpty { try? insert(missing, into: server, layout, nowMs: 0) }
    }
    return union.values.sorted { ($0.appId, $0.version) < ($1.appId, $1.version) }
  }

  private struct Key: Hashable {
    let appId: String
    let version: Int64
    init(_ record: Record) { (appId, version) = (record.appId, record.version) }
  }

  private static func insert(
    _ records: [Record], into server: ClickHouseServer, _ layout: ClusterLayout, nowMs: Int64
  ) throws(ClickHouseError) {
    var rows = Data()
    for record in records {
      var json = JSONWriter()
      json.beginObject()
      json.member("app_id", record.appId)
      json.key("version")
      json.value(record.version)
      json.key("created_ms")
      json.value(record.createdMs)
      json.member("document", record.document)
      json.key("written_ms")
      json.value(max(0, nowMs))
      json.endObject()
      rows.append(contentsOf: json.bytes)
      rows.append(UInt8(ascii: "\n"))
    }
    try server.insert(
      "INSERT INTO \(layout.database).update_configs FORMAT JSONEachRow", data: rows)
  }

  /// Rows of `app_id, version, created, hex(document)`.
  static func parse(_ text: String) -> [Record] {
    TabSeparatedRows.parse(text).compactMap { fields in
      guard fields.count == 4, let version = Int64(fields[1]), let created = Int64(fields[2]),
        let bytes = Hex.decode(fields[3]),
        let document = String(validating: bytes, as: UTF8.self)
      else { return nil }
      return Record(appId: fields[0], version: version, createdMs: created, document: document)
    }
  }
}
