import Foundation

/// Read connections shared by the request threads. Each connection is used by
/// one thread at a time; a request takes one, runs its queries, returns it.
public final class ConnectionPool: @unchecked Sendable {
  private let condition = NSCondition()
  private var idle: [Database]
  private let gate: ReadGate
  /// Page cache of each read connection, for the rollups file and the
  /// events file. A report over aggregates reads a few MiB; a report that
  /// reads raw events streams through whatever cache it has, and at the
  /// writer's 32 MiB four such connections took the daemon past its memory
  /// bar (docs/performance.md). Reports read the events only for their
  /// unfolded tail, so most of the 16 MiB goes to the aggregates.
  static let rollupsCacheKiB = 12 * 1024
  static let eventsCacheKiB = 4 * 1024

  /// Opens `size` connections to the file at `path`. Every use passes
  /// through `gate`, which the batch writer closes to rewind the log.
  public init(path: String, size: Int, gate: ReadGate = ReadGate()) throws(StoreError) {
    self.gate = gate
    var connections: [Database] = []
    for _ in 0..<max(1, size) {
      let database = try Database(path: path, create: false)
      try database.execute("PRAGMA main.cache_size = -\(Self.eventsCacheKiB)")
      try database.execute("PRAGMA rollups.cache_size = -\(Self.rollupsCacheKiB)")
      connections.append(database)
    }
    idle = connections
  }

  /// Runs `body` with a connection of its own, waiting for one if all are busy.
  public func withConnection<T>(_ body: (Database) throws(StoreError) -> T) throws(StoreError) -> T
  {
    gate.enter()
    defer { gate.leave() }
    condition.lock()
    while idle.isEmpty { condition.wait() }
    let database = idle.removeLast()
    condition.unlock()
    defer {
      condition.lock()
      idle.append(database)
      condition.signal()
      condition.unlock()
    }
    return try body(database)
  }
}
