import Dispatch
import Synchronization
import UptakeCore

/// The live update configurations of every app, compiled and held in memory
/// so that update checks never touch SQLite. A thread of its own polls the
/// database (PRAGMA data_version, as `KeyDirectory` does) every
/// `pollIntervalMs` and, when another connection committed, rereads the live
/// version numbers; only apps whose version moved are read and compiled
/// again. A configuration put with the CLI is so served within a second,
/// without a restart. Each app's compiled value is replaced whole, so a
/// check sees the old configuration or the new one, never a mix.
public final class UpdateConfigDirectory<Compiled: Sendable>: Sendable {
  /// Turns a stored configuration into what the checks read; nil leaves the
  /// app without a configuration (the stored one does not validate).
  public typealias Compile = @Sendable (StoredUpdateConfiguration) -> Compiled?

  /// How often the poller looks for changes: a put is live within this
  /// plus the time to compile, well inside the promised second.
  public static var pollIntervalMs: Int { 200 }

  private struct Live: Sendable {
    var version: Int64
    var compiled: Compiled?
  }

  private let database: Mutex<Database>
  private let compile: Compile
  private let live = Mutex<[Int64: Live]>([:])
  private let dataVersion = Mutex<Int64>(-1)
  private let stopped = Atomic<Bool>(false)
  private let wake = DispatchSemaphore(value: 0)
  private let logger: Logger?

  /// Takes a connection of its own, used only to reload; loads every live
  /// configuration before returning.
  public init(database: sending Database, logger: Logger? = nil, compile: @escaping Compile)
    throws(StoreError)
  {
    self.database = Mutex(database)
    self.compile = compile
    self.logger = logger
    try refresh()
  }

  /// The compiled live configuration of the app, nil when it has none.
  public func compiled(appNo: Int64) -> Compiled? {
    live.withLock { $0[appNo]?.compiled }
  }

  /// Every app's compiled live configuration, by app number.
  public func allCompiled() -> [Int64: Compiled] {
    live.withLock { $0.compactMapValues(\.compiled) }
  }

  /// The live version number of the app's configuration, nil when it has none.
  public func version(appNo: Int64) -> Int64? {
    live.withLock { $0[appNo]?.version }
  }

  /// Reloads what changed since the last look; cheap when nothing did.
  public func refresh() throws(StoreError) {
    try database.withLock { (database) throws(StoreError) in
      let current = try database.scalarInt("PRAGMA data_version") ?? 0
      if dataVersion.withLock({ $0 }) == current { return }
      let versions = try database.read { () throws(StoreError) in
        try UpdateConfigStore.liveVersions(in: database)
      }
      let known = live.withLock { $0.mapValues(\.version) }
      var changed: [Int64: Live] = [:]
      for (appNo, version) in versions where known[appNo] != version {
        guard let stored = try UpdateConfigStore.version(version, appNo: appNo, in: database)
        else { continue }
        let compiled = compile(stored)
        if compiled == nil {
          logger?.error(
            "stored update configuration does not validate; the app answers no update",
            ["app.no": String(appNo), "config.version": String(version)])
        }
        changed[appNo] = Live(version: version, compiled: compiled)
      }
      live.withLock { live in
        for appNo in live.keys where versions[appNo] == nil { live[appNo] = nil }
        live.merge(changed) { _, new in new }
      }
      dataVersion.withLock { $0 = current }
    }
  }

  /// Polls until `stop`; returns only then. A failed poll is logged and
  /// retried at the next interval, keeping the configurations it has.
  public func run() {
    while !stopped.load(ordering: .acquiring) {
      do throws(StoreError) {
        try refresh()
      } catch {
        logger?.error("cannot reload update configurations", ["error": error.description])
      }
      _ = wake.wait(timeout: .now() + .milliseconds(Self.pollIntervalMs))
    }
  }

  /// Makes `run` return.
  public func stop() {
    stopped.store(true, ordering: .releasing)
    wake.signal()
  }
}
