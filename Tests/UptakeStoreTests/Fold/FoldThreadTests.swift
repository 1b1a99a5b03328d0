import Foundation
import Synchronization
import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

/// The fold thread (`FoldThread`) where the batch writer's tests do not
/// reach: a rollups file that cannot grow.
@Suite("The fold thread")
struct FoldThreadTests {
  @Test("a fold that cannot write is reported once and retried; it never holds ingest back")
  func failingFoldDoesNotHoldIngest() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let appNo = try database.addApp("shop")
    let inserter = EventInserter(database: database)
    let stored = (0..<2_000).map { event(installId: "i\($0)") }
    _ = try inserter.insert([batch(appNo, stored)])

    // The rollups file capped at its size now: the first fold needs more.
    let rollupsBytes = try #require(
      FileManager.default.attributesOfItem(atPath: Database.rollupsPath(for: scratch.databasePath))[
        .size] as? Int)
    let failures = Mutex<[String]>([])
    var limits = BatchWriter.Limits()
    limits.maxUnfoldedEvents = 100
    limits.maxFileBytes = Int64(rollupsBytes)
    limits.maxReadHoldSeconds = 1
    var observer = BatchWriter.Observer()
    observer.upkeepFailed = { failure in failures.withLock { $0.append(failure) } }
    let folder = try FoldThread(
      path: scratch.databasePath, limits: limits, readGate: ReadGate(), observer: observer)
    folder.start()
    folder.stored(through: inserter.lastInsertedSeq)
    let deadline = Date().addingTimeInterval(5)
    while failures.withLock({ $0.isEmpty }) && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.02)
    }
    // Past the cap of 100, but the fold fails: the writer is not held.
    let started = Date()
    folder.waitUntilBacklog(atMost: 100, backlogWaitSeconds: 0.05) { false }
    #expect(Date().timeIntervalSince(started) < 1)
    // Retried every second, reported once.
    Thread.sleep(forTimeInterval: 1.5)
    folder.stop()
    let reported = failures.withLock { $0 }
    #expect(reported.count == 1, "\(reported)")
    #expect(reported.first?.contains("full") == true, "\(reported)")
    #expect(folder.backlog == 2_000)
    #expect(try RollupFolder.foldedSeq(database) == 0)
  }
}
