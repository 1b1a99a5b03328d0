import Foundation
import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

/// The fold's bucket membership: a filter per day in memory, confirmed
/// against the packed members (`BucketMembership`, `MemberFilter`).
@Suite("Bucket membership")
struct BucketMembershipTests {
  @Test("the filter never forgets a member, and rarely claims a stranger")
  func filterRates() {
    // Install keys as the fold has them.
    let keys = (0..<200_000).map { StableHash.installKey(appNo: 1, installId: "i\($0)") }
    let members = keys[..<100_000]
    let strangers = keys[100_000...]
    var filter = MemberFilter(members: members.count)
    let bucket = MemberFilter.bucketHash(updateId: "u1", action: 0)
    for install in members { filter.insert(MemberFilter.key(bucket: bucket, install: install)) }
    #expect(filter.count == 100_000)
    #expect(filter.capacity >= 100_000)
    let forgotten = members.filter {
      !filter.mayContain(MemberFilter.key(bucket: bucket, install: $0))
    }
    #expect(forgotten.isEmpty)
    // The same installs in another bucket, and other installs in this one.
    let otherBucket = MemberFilter.bucketHash(updateId: "u1", action: 1)
    let claimed =
      members.filter { filter.mayContain(MemberFilter.key(bucket: otherBucket, install: $0)) }
      .count
      + strangers.filter { filter.mayContain(MemberFilter.key(bucket: bucket, install: $0)) }.count
    // About 1 in 1,000 at 16 bits a member; 1 in 200 would mean a bug.
    #expect(claimed < 1_000, "\(claimed) of 200,000 strangers claimed")
    #expect(!filter.shouldGrow(toHold: filter.capacity))
    #expect(filter.shouldGrow(toHold: filter.capacity + 1))
  }

  /// `count` impressions of u1 on 2026-03-10 by installs `first..<first + count`.
  static func impressions(_ installs: Range<Int>, at time: String = "2026-03-10T12:00:00Z")
    -> [Event]
  {
    installs.map { event(installId: "i\($0)", at: time) }
  }

  static func installs(_ database: Database) throws -> Int64? {
    try database.scalarInt(
      "SELECT installs FROM daily_counts WHERE update_id = 'u1' AND day = 20522 AND action = 0")
  }

  @Test("a day with many installs in a step gets a filter; repeats in later steps count once")
  func repeatsAcrossSteps() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let appNo = try database.addApp("app")
    let inserter = EventInserter(database: database)
    let folder = RollupFolder(database: database)
    _ = try inserter.insert([batch(appNo, Self.impressions(0..<800))])
    try folder.fold(maxEvents: 50_000)
    #expect(try Self.installs(database) == 800)
    #expect(folder.membership.filters.keys.map(\.day) == [20522])
    // 400 known installs again, earlier than their first impression; 400 new ones.
    _ = try inserter.insert([
      batch(appNo, Self.impressions(400..<1_200, at: "2026-03-10T06:00:00Z"))
    ])
    try folder.fold(maxEvents: 50_000)
    #expect(try Self.installs(database) == 1_200)
    // A few late repeats: no filter is worth building for them, the
    // bucket's packed members answer.
    _ = try inserter.insert([batch(appNo, Self.impressions(0..<3, at: "2026-03-10T23:00:00Z"))])
    try folder.fold(maxEvents: 50_000)
    #expect(try Self.installs(database) == 1_200)
    let members = try InstallChunksTests.buckets(database)["u1 day 20522 action 0 test 0"]
    #expect(
      members?.keys == (try InstallChunksTests.members(database))["u1 day 20522 action 0 test 0"])
    // The repeats at 06:00 moved 400 first impressions earlier.
    let firsts = try InstallChunksTests.firstImpressions(database)
    #expect(firsts.entries["u1 day 20522 test 0"] == 1_200 + 400)
    #expect(firsts.firsts == (try InstallChunksTests.impressionRows(database)))
  }

  @Test("filters stay within their memory budget; days past it answer from their packed members")
  func filtersWithinTheirBudget() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let shop = try ShopStore(scratch)
    let (database, appNo, inserter, folder) = (
      shop.database, shop.appNo, shop.inserter, shop.folder
    )
    // Room for three of the smallest filters, where eight days each bring
    // enough installs for one: late arrivals over a week.
    let smallest = MemberFilter(members: 1).byteCount
    folder.membership.maxFilterBytes = 3 * smallest
    let days = (1...8).map { String(format: "2026-03-%02dT10:00:00Z", $0) }
    _ = try inserter.insert([batch(appNo, days.flatMap { Self.impressions(0..<600, at: $0) })])
    try folder.fold(maxEvents: 50_000)
    func held() -> Int { folder.membership.filters.values.reduce(0) { $0 + $1.byteCount } }
    #expect(folder.membership.filters.count == 3 && held() <= 3 * smallest)
    // Every install again on every day, later in the day: no day's count moves.
    let again = (1...8).map { String(format: "2026-03-%02dT20:00:00Z", $0) }
    _ = try inserter.insert([batch(appNo, again.flatMap { Self.impressions(0..<600, at: $0) })])
    try folder.fold(maxEvents: 50_000)
    #expect(held() <= 3 * smallest)
    #expect(
      try database.scalarInt(
        "SELECT sum(installs) FROM daily_counts WHERE update_id = 'u1' AND action = 0") == 8 * 600)
  }

  @Test("a filter grows past its capacity and still knows every member")
  func filterGrows() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let appNo = try database.addApp("app")
    let inserter = EventInserter(database: database)
    let folder = RollupFolder(database: database)
    _ = try inserter.insert([batch(appNo, Self.impressions(0..<1_000))])
    try folder.fold(maxEvents: 50_000)
    let smallest = try #require(folder.membership.filters.values.first?.capacity)
    #expect(smallest == MemberFilter(members: 1).capacity)
    // 500 known installs and enough new ones to overfill it.
    let total = smallest + 500
    _ = try inserter.insert([batch(appNo, Self.impressions(500..<total))])
    try folder.fold(maxEvents: total)
    #expect(try Self.installs(database) == Int64(total))
    let grown = try #require(folder.membership.filters.values.first)
    #expect(grown.capacity >= total)
    #expect(grown.count == total, "every member went into the bigger filter once")
  }

  @Test("after another connection folds, the filters are built again from the packed members")
  func anotherWriterFolds() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let daemon = try scratch.openDatabase()
    let appNo = try daemon.addApp("app")
    let daemonInserter = EventInserter(database: daemon)
    let daemonFolder = RollupFolder(database: daemon)
    _ = try daemonInserter.insert([batch(appNo, Self.impressions(0..<600))])
    try daemonFolder.fold(maxEvents: 50_000)
    #expect(daemonFolder.membership.filters.keys.map(\.day) == [20522])
    // An import beside the daemon adds and folds 600 more members.
    let importer = try Database(path: scratch.databasePath)
    let importInserter = EventInserter(database: importer)
    let importFolder = RollupFolder(database: importer)
    _ = try importInserter.insert([batch(appNo, Self.impressions(600..<1_200))])
    try importFolder.fold(maxEvents: 50_000)
    // The daemon's filter of that day lacks them: kept, it would count
    // them as new again.
    _ = try daemonInserter.insert([batch(appNo, Self.impressions(0..<1_200))])
    try daemonFolder.fold(maxEvents: 50_000)
    #expect(try Self.installs(daemon) == 1_200)
    #expect(
      try InstallChunksTests.buckets(daemon)["u1 day 20522 action 0 test 0"]?.keys.count == 1_200)
  }
}
