import Foundation
import UptakeCluster
import UptakeCore
import UptakeStore

/// Where `uptake import --clickhouse` stores a file's events before they
/// go to the cluster: a database of its own in TMPDIR, migrated as any, so
/// the lines are checked, and their duplicates dropped, by one box's own
/// writer, and then shipped as a node ships its spool.
struct ScratchSpool {
  let database: Database
  /// The app, as mirrored from the cluster.
  let app: AppRecord
  private let directory: String
  private let path: String
  private let cluster: ClusterLayout

  /// Refuses an app the cluster does not hold (65).
  init(cluster: ClusterLayout, appId: String) throws(CommandError) {
    try ClusterArguments.requireApp(appId, in: cluster)
    var template = Array(
      (NSTemporaryDirectory() + "/uptake-import-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else {
      throw CommandError(
        message: "cannot make a scratch directory in \(NSTemporaryDirectory()): "
          + String(cString: strerror(errno)), exitCode: ExitCode.ioError)
    }
    directory = String(cString: made)
    path = directory + "/spool.db"
    self.cluster = cluster
    do {
      database = try StoreAccess.open(path, create: true)
      _ = try ClusterAppsMirror.sync(cluster, into: database, nowMs: WallClock.nowMs())
    } catch let error as CommandError {
      try? FileManager.default.removeItem(atPath: directory)
      throw error
    } catch {
      try? FileManager.default.removeItem(atPath: directory)
      throw CommandError(message: "\(error)", exitCode: ExitCode.unavailable)
    }
    app = try StoreAccess.app(appId, in: database)
  }

  /// Ships what was stored, showing how far it got on stderr when that is
  /// a terminal.
  func ship(_ output: inout CommandOutput) throws(CommandError)
    -> ScratchSpoolUpload.Outcome
  {
    let spool: Database
    do {
      spool = try Database(path: path, create: false)
    } catch {
      throw .store(error)
    }
    defer { spool.close() }
    let isTerminal = isatty(STDERR_FILENO) == 1
    let write = output.standardError
    let outcome: ScratchSpoolUpload.Outcome
    do {
      outcome = try ScratchSpoolUpload(spool: spool, layout: cluster).run { done, total in
        if isTerminal { write("\r\u{1B}[Kshipped \(done) of \(total) events to the cluster") }
      }
    } catch {
      throw CommandError(message: error.description, exitCode: ExitCode.unavailable)
    }
    if isTerminal { output.standardError("\n") }
    return outcome
  }

  /// Deletes the scratch database.
  func remove() {
    try? FileManager.default.removeItem(atPath: directory)
  }
}
