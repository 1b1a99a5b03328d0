import Foundation
import Testing
import UptakeCore
import UptakeDataGen
import UptakeTestSupport

@testable import UptakeStore

/// funnel_downloads and install_days (schema/0016): worked out from each
/// install's whole timeline, so they hold the same rows whatever order the
/// events arrived in and whenever they were folded.
@Suite("funnel_downloads: downloads and the rises after them, from the whole timeline")
struct FunnelDownloadsTests {
  /// A timeline of (hour, version, downloaded update) with versions
  /// numbered in order of the `versions` list, so ranks are the numbers.
  static func timeline(_ points: [(Int64, Int32, Int32?)]) -> [TimelinePoint] {
    points.map {
      TimelinePoint(
        ts: $0.0 * 3_600_000, version: $0.1, download: $0.2 ?? TimelinePoint.noDownload)
    }.sorted { $0.precedes($1) }
  }

  static let ranks: [Int32] = [0, 1, 2, 3]

  @Test("rises: after each download, each event above every one between")
  func rises() {
    // Hours: 1 download on version 1; 2 on 1; 3 on 0 (a downgrade); 4 on 2;
    // 5 on 1; 6 download; 7 on 3.
    let points = Self.timeline([
      (1, 1, 0), (2, 1, nil), (3, 0, nil), (4, 2, nil), (5, 1, nil), (6, 1, 0), (7, 3, nil),
    ])
    let rises = FunnelDownloads.rises(
      after: [1 * 3_600_000, 6 * 3_600_000], in: points, ranks: Self.ranks)
    // After hour 1: 2 (first), 4 (above 1), 7 (above 2); 3 and 5 are not
    // above what came between. After hour 6: 7.
    #expect(rises.map { $0.ts / 3_600_000 } == [2, 4, 7])
    #expect(rises.map(\.version) == [1, 2, 3])
  }

  @Test("changed rows: a late point changes the rows of the downloads it rises after, no others")
  func changedRows() {
    // Update 0 downloaded at hour 1, update 1 at hour 3, on version 1.
    let known: [(Int64, Int32, Int32?)] = [(1, 1, 0), (2, 2, nil), (3, 1, 1), (4, 1, nil)]
    func changed(_ added: (Int64, Int32, Int32?)) -> [Int32] {
      let points = Self.timeline(known + [added])
      return FunnelDownloads.changedRows(
        added: Self.timeline([added]), timeline: points, ranks: Self.ranks
      ).map(\.update).sorted()
    }
    // Before every download, or no higher than an event since each: none.
    #expect(changed((0, 0, nil)) == [])
    #expect(changed((5, 1, nil)) == [])
    #expect(changed((3, 2, nil)) == [])
    // Above everything since both downloads; since the first only (the
    // event at hour 2 is at the same time, not between).
    #expect(changed((5, 3, nil)) == [0, 1])
    #expect(changed((2, 3, nil)) == [0])
    // A new download is its own row's change, and rises after an earlier one.
    #expect(changed((5, 2, 1)) == [1])
  }

  /// install_days and funnel_download_chunks as text lines, in key order:
  /// of an install's entries in a bucket, the newest, which holds what the
  /// row is now (the ones before it stay, schema/0019).
  static func tables(_ database: Database) throws -> [String] {
    var lines: [String] = []
    let timelines = try database.statement(
      "SELECT install_key, day, app_version, first_ts, hex(times) FROM install_days ORDER BY 1, 2, 3"
    )
    while try timelines.step() {
      lines.append((0..<5).map { timelines.string(Int32($0)) }.joined(separator: " "))
    }
    timelines.reset()
    var newest: [String: String] = [:]
    let chunks = try database.statement(
      "SELECT update_id, day, packed FROM funnel_download_chunks ORDER BY update_id, day, chunk")
    while try chunks.step() {
      let bucket = "\(chunks.string(0)) \(chunks.string(1))"
      chunks.withBlob(2) { packed in
        DownloadRow.forEachPacked(in: packed) { install, downloads, rises in
          newest["\(bucket) \(install)"] = "\(hex(downloads)) \(hex(rises))"
        }
      }
    }
    chunks.reset()
    // Ordered as SQL would: update and day as text, the install key as a number.
    let keys = newest.keys.sorted { left, right in
      let l = left.split(separator: " "), r = right.split(separator: " ")
      return (l[0], Int(l[1])!, Int64(l[2])!) < (r[0], Int(r[1])!, Int64(r[2])!)
    }
    return lines + keys.map { "\($0) \(newest[$0]!)" }
  }

  private static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
    bytes.map { String(format: "%02X", $0) }.joined()
  }

  @Test("the same rows in any arrival order, with folds between arrivals")
  func sameRowsInAnyOrder() throws {
    var parameters = EventSimulation.Parameters()
    parameters.seed = 21
    parameters.installs = 60
    parameters.updates = 3
    parameters.days = 10
    parameters.endMs = ms("2026-03-12T00:00:00Z")
    var events: [Event] = []
    EventSimulation(parameters).generate { events.append($0) }
    #expect(events.contains { $0.action == .download })

    var generator = SeededGenerator(seed: 5)
    let shuffled = events.shuffled(using: &generator)
    var expected: [String]?
    for (name, order) in [
      ("time order", events.sorted { $0.timestampMs < $1.timestampMs }),
      ("reverse", events.sorted { $0.timestampMs > $1.timestampMs }),
      ("generation order", events),
      ("shuffled", shuffled),
    ] {
      let scratch = try ScratchDirectory()
      defer { scratch.remove() }
      let shop = try ShopStore(scratch)
      for start in stride(from: 0, to: order.count, by: 97) {
        _ = try shop.store(Array(order[start..<min(start + 97, order.count)]))
        if start % 3 == 0 { try shop.folder.foldAll(step: 150) }
      }
      try shop.folder.foldAll()
      let rows = try Self.tables(shop.database)
      #expect(rows.count > 100, "\(name)")
      if let expected {
        #expect(
          rows == expected,
          "\(name): \(zip(rows, expected).first { $0 != $1 }.map { "\($0)" } ?? "lengths differ")")
      } else {
        expected = rows
      }
    }
  }
}
