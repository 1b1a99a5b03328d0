import Foundation

/// `--clickhouse URL[,URL…]`, `--clickhouse-database NAME` and
/// `--clickhouse-cluster NAME`, as `uptaked` takes them: where the cluster
/// is. Without a URL the node is one box, and SQLite is the store.
public struct ClusterOptions: Sendable, Equatable {
  /// The servers a node talks to, `http://HOST:PORT` each.
  public var urls: [URL] = []
  public var database = "uptake"
  /// The cluster in the servers' `remote_servers` whose shards hold the
  /// events; nil for one server.
  public var cluster: String?

  public init() {}

  /// The flags, each with the environment variable that stands in for it.
  public static let flags = [
    "--clickhouse": "UPTAKE_CLICKHOUSE",
    "--clickhouse-database": "UPTAKE_CLICKHOUSE_DATABASE",
    "--clickhouse-cluster": "UPTAKE_CLICKHOUSE_CLUSTER",
  ]

  /// The options the environment's variables give; an empty one is unset.
  public init(environment: [String: String]) throws(Problem) {
    for (flag, variable) in Self.flags.sorted(by: { $0.key < $1.key }) {
      if let value = environment[variable], !value.isEmpty {
        try set(flag, to: value, as: variable)
      }
    }
  }

  /// Sets what `flag` (one of `flags`) names; `name` is how the value was
  /// given, for the message when it is wrong.
  public mutating func set(_ flag: String, to value: String, as name: String? = nil)
    throws(Problem)
  {
    switch flag {
    case "--clickhouse": urls = try Self.urls(from: value, as: name ?? flag)
    case "--clickhouse-database": database = try Self.name(value, of: name ?? flag)
    case "--clickhouse-cluster": cluster = try Self.name(value, of: name ?? flag)
    default: preconditionFailure("\(flag) is not a cluster flag")
    }
  }

  public var isEnabled: Bool { !urls.isEmpty }

  /// What is wrong with a flag's value, said for the operator.
  public struct Problem: Error, Sendable, CustomStringConvertible {
    public let description: String
  }

  /// The servers of a `--clickhouse` value: URLs separated by commas, each
  /// `http://` or `https://` with a host, and neither path nor query.
  public static func urls(from value: String, as name: String = "--clickhouse") throws(Problem)
    -> [URL]
  {
    let parts = value.split(separator: ",", omittingEmptySubsequences: false).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    var urls: [URL] = []
    for part in parts {
      guard let url = URL(string: part), let scheme = url.scheme?.lowercased(),
        scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty,
        url.path.isEmpty || url.path == "/", url.query == nil
      else {
        throw Problem(
          description:
            "\(name) needs http://HOST:PORT URLs separated by commas, not \"\(part)\"")
      }
      urls.append(URL(string: "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")")!)
    }
    return urls
  }

  /// A database or cluster name: a plain identifier, as it goes into SQL.
  public static func name(_ value: String, of flag: String) throws(Problem) -> String {
    guard ClusterLayout.isIdentifier(value) else {
      throw Problem(
        description:
          "\(flag) needs a name of letters, digits and underscores (not first a digit), not \"\(value)\""
      )
    }
    return value
  }

  /// The layout the options name, or nil when they name no server.
  public func layout(timeoutSeconds: Double = 30) -> ClusterLayout? {
    guard isEnabled else { return nil }
    return ClusterLayout(
      servers: urls.map { ClickHouseServer(url: $0, timeoutSeconds: timeoutSeconds) },
      database: database, cluster: cluster)
  }
}
