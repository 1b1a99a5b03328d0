/// Why a statement did not run on a ClickHouse server.
public enum ClickHouseError: Error, Sendable, CustomStringConvertible, Equatable {
  /// No HTTP answer: the server is down, unreachable, or too slow.
  case unreachable(server: String, message: String)
  /// An answer other than 200: ClickHouse's message says why (a syntax
  /// error, an unknown table, a shard it could not reach).
  case refused(server: String, status: Int, message: String, statement: String)

  public var description: String {
    switch self {
    case .unreachable(let server, let message):
      "ClickHouse at \(server) cannot be reached: \(message)"
    case .refused(let server, let status, let message, let statement):
      "ClickHouse at \(server) answered \(status): \(message) (statement: \(statement))"
    }
  }
}
