import Foundation
import Testing
import UptakeCluster
import UptakeStore
import UptakeTestSupport

/// A node's spool (a real SQLite file) shipped to two real shards.
@Suite("Shipping a spool to two real shards", .serialized, .timeLimit(.minutes(3)))
struct EventShipperTests {
  static let nowMs: Int64 = 1_796_160_000_000

  /// A migrated spool holding app `shop` and `count` events: every tenth
  /// without an id, every seventh without an install, some with a platform.
  static func spool(in scratch: ScratchDirectory, events count: Int) throws -> Database {
    let spool = try Database(path: scratch.databasePath)
    try Migrator.migrate(spool)
    try spool.write { () throws(StoreError) in
      try spool.execute(
        "INSERT INTO apps (app_no, app_id, ingest_key_hash, read_key_hash, created_at)"
          + " VALUES (1, 'shop', x'01', x'02', 0)")
      let insert = try spool.statement(
        """
        INSERT INTO events (app_no, client_id, update_id, action, app_version, install_id, ts,
          received_at, os_version, platform, previous_app_version, is_test)
        VALUES (1, ?, 'u1', ?, '1.0', ?, ?, ?, '17.4', ?, ?, 0)
        """)
      for index in 0..<count {
        try insert.bind(1, index % 10 == 0 ? nil : "e\(index)")
        try insert.bind(2, index % 4)
        try insert.bind(3, index % 7 == 0 ? nil : "i\(index % 300)")
        try insert.bind(4, nowMs - Int64(index) * 60_000)
        try insert.bind(5, nowMs)
        try insert.bind(6, index % 3 == 0 ? "ios" : nil)
        try insert.bind(7, index % 5 == 0 ? "0.9" : nil)
        try insert.run()
        insert.reset()
      }
    }
    return spool
  }

  @Test("every event once on the shards, in blocks; shipped twice after a lost record, still once")
  func shipsOnce() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let layout = try shards.migratedLayout()
    let spool = try Self.spool(in: scratch, events: 2_500)
    let shipper = try EventShipper(spool: spool, layout: layout, blockEvents: 1_000)

    #expect(try shipper.pendingEvents() == 2_500)
    let blocks = try (0..<4).map { _ in try shipper.shipNextBlock() }
    #expect(blocks == [1_000, 1_000, 500, 0])
    #expect(try shipper.pendingEvents() == 0)

    func cluster(_ sql: String) throws -> String { try layout.servers[1].execute(sql) }
    #expect(try cluster("SELECT uniqExact(app_id, id) FROM uptake.events") == "2500\n")
    #expect(try cluster("SELECT count() FROM uptake.events FINAL") == "2500\n")
    #expect(try cluster("SELECT count() FROM uptake.events WHERE platform IS NULL") == "1666\n")
    #expect(try cluster("SELECT count() FROM uptake.events WHERE install_id = ''") == "358\n")
    #expect(
      try cluster("SELECT count() FROM uptake.events WHERE previous_app_version = '0.9'") == "500\n"
    )
    let installsOn = try (0..<2).map { index in
      try shards.query(index, "SELECT count() FROM uptake.events_local")
    }
    #expect(installsOn.allSatisfy { $0 != "0\n" }, "both shards hold events: \(installsOn)")

    // A crash after ClickHouse took the blocks, before the spool recorded
    // them: everything goes again.
    try spool.write { () throws(StoreError) in
      try spool.execute("UPDATE cluster_spool SET shipped_seq = 0")
    }
    while try shipper.shipNextBlock() > 0 {}
    #expect(try cluster("SELECT uniqExact(app_id, id) FROM uptake.events") == "2500\n")
    #expect(try cluster("SELECT count() FROM uptake.events FINAL") == "2500\n")
    // The node's ids for id-less events stay the same on the second pass.
    #expect(
      try cluster("SELECT uniqExact(id) FROM uptake.events WHERE id LIKE '~%'") == "250\n")
  }

  @Test(
    "with no server answering, nothing is recorded as shipped; once one is back, all of it ships")
  func clusterDown() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let shards = try ClickHouseShards(count: 2)
    defer { shards.stopAll() }
    let layout = try shards.migratedLayout()
    let spool = try Self.spool(in: scratch, events: 300)
    let shipper = try EventShipper(spool: spool, layout: layout)
    shards.stop(0)
    shards.stop(1)

    #expect(throws: ShippingError.self) { try shipper.shipNextBlock() }
    #expect(try shipper.shippedSeq() == 0 && shipper.pendingEvents() == 300)

    try shards.start(0)
    try shards.start(1)
    #expect(try shipper.shipNextBlock() == 300)
    #expect(
      try layout.servers[0].execute("SELECT uniqExact(app_id, id) FROM uptake.events") == "300\n")
  }
}
