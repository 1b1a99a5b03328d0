import Foundation
import UptakeCore

/// A node's memory of the rows a report query answered for each group of
/// each day, with the count of events the group's aggregates had taken in
/// when it asked (`report_days.inserts`, schema/clickhouse/0007).
///
/// Most of a report's range does not change between two requests: the
/// days before today take only late events, each into one group. A group
/// whose count is the one remembered is answered from here; only the
/// others are asked of the cluster, where their sets of ids and
/// installIds are merged again (`ClusterReports.remembered`).
///
/// Exact because the count is read before the rows: the rows then hold
/// at least what the count saw, and a count still the same later means
/// nothing has come in since it was read (it grows with every event a
/// row takes in, merges keep it, and nothing leaves the aggregates), so
/// the rows remembered are the rows the cluster would answer.
final class ReportDayCache: @unchecked Sendable {
  /// One group of one day of one query's rows: the app, the test filter
  /// and the query (its `shape`, which names every part of it but the
  /// days) decide which rows a group has; `group` holds its keys.
  struct Key: Hashable {
    let appId: String
    let test: TestFilter
    let shape: String
    let day: Int64
    let group: [String]
  }

  private struct Entry {
    var inserts: UInt64
    var rows: [[String]]
    var lastUsed: UInt64
  }

  /// Rows kept at most, all entries together; past it the least recently
  /// used entries go. A 30-day report over the bench's 10.4M events
  /// keeps 1,000-25,000 rows a query (a row or two a group).
  let maxRows: Int
  private let lock = NSLock()
  private var entries: [Key: Entry] = [:]
  private var rowCount = 0
  private var clock: UInt64 = 0
  private var counts = Counts()

  /// Groups answered from memory and groups asked of the cluster, since
  /// the cache was made.
  struct Counts: Equatable, Sendable {
    var remembered = 0
    var asked = 0
  }

  /// When each app's reports were last asked for (`ReportWarmer` keeps
  /// those apps remembered).
  private var askedAt: [String: Date] = [:]

  init(maxRows: Int = 250_000) {
    self.maxRows = maxRows
  }

  /// Records that a report of `appId` was asked for, now.
  func noteAsked(_ appId: String) {
    lock.withLock { askedAt[appId] = Date() }
  }

  /// The apps whose reports were asked for in the last `seconds`.
  func appsAsked(withinSeconds seconds: Double) -> [String] {
    let since = Date().addingTimeInterval(-seconds)
    return lock.withLock { askedAt.filter { $0.value >= since }.map(\.key) }
  }

  var statistics: Counts { lock.withLock { counts } }

  /// The rows remembered for `key` when the group has taken in `inserts`
  /// events then as now; nil when it has changed or was never asked.
  func rows(for key: Key, inserts: UInt64) -> [[String]]? {
    lock.withLock {
      guard var entry = entries[key], entry.inserts == inserts else {
        counts.asked += 1
        return nil
      }
      clock += 1
      entry.lastUsed = clock
      entries[key] = entry
      counts.remembered += 1
      return entry.rows
    }
  }

  /// Remembers a group's rows, read after its count was `inserts`.
  func remember(_ rows: [[String]], for key: Key, inserts: UInt64) {
    lock.withLock {
      clock += 1
      let previous = entries.updateValue(
        Entry(inserts: inserts, rows: rows, lastUsed: clock), forKey: key)
      rowCount += rows.count - (previous?.rows.count ?? 0)
      if rowCount > maxRows { evictLeastRecentlyUsed() }
    }
  }

  /// Drops the entries used longest ago until a quarter of the room is
  /// free, so that eviction runs once in many inserts.
  private func evictLeastRecentlyUsed() {
    let target = maxRows * 3 / 4
    for (key, entry) in entries.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }) {
      guard rowCount > target else { break }
      entries[key] = nil
      rowCount -= entry.rows.count
    }
  }
}
