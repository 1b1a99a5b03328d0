import Foundation
import UptakeCore
import UptakeStore

/// The reports a node reads from the cluster's aggregates
/// (schema/clickhouse/0004_update_days.sql), in the same rows as one
/// box's `ReportQueries`, so the HTTP layer answers the same JSON and CSV.
///
/// Every query needs every shard: ClickHouse refuses a distributed query
/// with a shard down unless told to skip it, and it is never told, so a
/// report is whole or it is `StoreError.clusterUnavailable` (a 503).
public struct ClusterReports: Sendable {
  let layout: ClusterLayout
  /// Rows a report may hold at most, as on one box (`ReportQueries`).
  let maxRows: Int?

  public init(layout: ClusterLayout, maxRows: Int? = nil) {
    self.layout = layout
    self.maxRows = maxRows
  }

  /// Every update with events in the range: events by action, first and
  /// last seen; by update id in byte order.
  public func updates(appId: String, range: DayRange, test: TestFilter) throws(StoreError)
    -> [UpdateSummary]
  {
    let rows = try query(
      """
      SELECT update_id, toUInt8(action), uniqExactMerge(ids), minMerge(first_ms),
        maxMerge(last_ms)
      FROM \(layout.database).update_days
      WHERE \(scope(appId: appId, range: range, test: test))
      GROUP BY update_id, action
      """)
    var byUpdate: [String: (events: [Int], first: Int64, last: Int64)] = [:]
    for row in rows {
      guard row.count == 5, let action = Int(row[1]), action < 4, let events = Int(row[2]),
        let first = Int64(row[3]), let last = Int64(row[4])
      else { continue }
      var entry = byUpdate[row[0]] ?? ([0, 0, 0, 0], .max, .min)
      entry.events[action] += events
      entry.first = min(entry.first, first)
      entry.last = max(entry.last, last)
      byUpdate[row[0]] = entry
    }
    if let maxRows, byUpdate.count > maxRows { throw .reportTooLarge(maxRows: maxRows) }
    return byUpdate.sorted { $0.key.precedesInByteOrder($1.key) }.map {
      UpdateSummary(
        updateId: $0.key, firstSeenMs: $0.value.first, lastSeenMs: $0.value.last,
        events: $0.value.events)
    }
  }

  /// One update's events and distinct installs by action over the range,
  /// and its events by day.
  public func update(appId: String, updateId: String, range: DayRange, test: TestFilter)
    throws(StoreError) -> UpdateDetail
  {
    let scope =
      "\(scope(appId: appId, range: range, test: test)) AND update_id = \(Self.quoted(updateId))"
    var byDay: [Int64: [Int]] = [:]
    var actions = Array(repeating: ActionCounts(), count: Action.allCases.count)
    for row in try query(
      """
      SELECT toUInt32(day), toUInt8(action), uniqExactMerge(ids)
      FROM \(layout.database).update_days WHERE \(scope)
      GROUP BY day, action
      """)
    {
      guard row.count == 3, let day = Int64(row[0]), let action = Int(row[1]), action < 4,
        let events = Int(row[2])
      else { continue }
      byDay[day, default: [0, 0, 0, 0]][action] += events
      actions[action].events += events
    }
    for row in try query(
      """
      SELECT toUInt8(action), uniqExactIfMerge(installs)
      FROM \(layout.database).update_days WHERE \(scope)
      GROUP BY action
      """)
    {
      guard row.count == 2, let action = Int(row[0]), action < 4, let installs = Int(row[1])
      else { continue }
      actions[action].installs = installs
    }
    return UpdateDetail(
      updateId: updateId, actions: actions,
      days: byDay.sorted { $0.key < $1.key }.map { (day: $0.key, events: $0.value) })
  }

  /// The rows of one app, range and test filter.
  private func scope(appId: String, range: DayRange, test: TestFilter) -> String {
    let flags =
      switch test {
      case .exclude: "is_test = 0"
      case .only: "is_test = 1"
      case .include: "1"
      }
    return """
      app_id = \(Self.quoted(appId)) AND \(flags)
        AND day BETWEEN toDate('\(Timestamp.formatDate(dayNumber: range.fromDay))')
        AND toDate('\(Timestamp.formatDate(dayNumber: range.toDay))')
      """
  }

  /// `sql`'s rows, as tab-separated fields, from the first server that
  /// answers it whole.
  private func query(_ sql: String) throws(StoreError) -> [[String]] {
    var failures: [String] = []
    for server in layout.servers {
      do {
        let text = try server.execute(
          sql + " FORMAT TabSeparated", settings: ["skip_unavailable_shards": "0"])
        return text.split(separator: "\n").map {
          $0.split(separator: "\t", omittingEmptySubsequences: false).map(Self.unescaped)
        }
      } catch {
        failures.append(error.description)
      }
    }
    throw .clusterUnavailable(failures.joined(separator: "; "))
  }

  /// A string as a ClickHouse literal: quoted, its backslashes and quotes
  /// escaped. Update ids hold neither (`UpdateID`), but nothing here relies
  /// on it.
  static func quoted(_ text: String) -> String {
    "'"
      + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
        of: "'", with: "\\'") + "'"
  }

  /// A TabSeparated field with its escapes undone.
  static func unescaped(_ field: Substring) -> String {
    guard field.contains("\\") else { return String(field) }
    var text = ""
    var escaping = false
    for character in field {
      if escaping {
        switch character {
        case "t": text.append("\t")
        case "n": text.append("\n")
        case "r": text.append("\r")
        case "0": text.append("\0")
        case "b": text.append("\u{8}")
        case "f": text.append("\u{C}")
        default: text.append(character)
        }
        escaping = false
      } else if character == "\\" {
        escaping = true
      } else {
        text.append(character)
      }
    }
    return text
  }
}
