/// Event counts by hour, dimension set and action, as runs: each fold
/// appends one run per app, test flag and day it touches, and reports sum
/// a range's runs. They replaced hourly_ and daily_dimension_counts, whose
/// upserts were about one B-tree write per folded event under sustained
/// ingest (docs/performance.md). Counts add up in any order, so runs need
/// no merging to be read right; a day's small runs are merged only to keep
/// what a report reads short.
enum DimensionCountRuns {
  /// Runs under 32k entries are merged once a day has 8 of them; the
  /// merge holds them decoded, ~24 bytes an entry, so this bounds it near
  /// 6 MiB.
  static let table = RunTable(
    name: "dimension_count_runs", fullRunEntries: 1 << 15, maxSmallRuns: 8)

  typealias Day = RunTable.Day

  /// Appends `counts` (any order, any keys) as a new run of `day`, merged
  /// with the day's small runs when it has enough of them.
  static func append(_ counts: [DimensionCount], to day: Day, _ database: Database)
    throws(StoreError)
  {
    guard !counts.isEmpty else { return }
    let (highest, small) = try table.runsToMerge(of: day, database)
    var merged = counts
    if !small.isEmpty {
      try table.take(small, of: day, database) { DimensionCount.unpackAll($0, into: &merged) }
      merged = summed(merged)
    }
    try table.add(
      merged.packed(reservingPerEntry: 6), entries: merged.count, number: highest + 1, to: day,
      database)
  }

  /// Appends the counts of every run of `day` to `counts`.
  static func read(_ day: Day, into counts: inout [DimensionCount], _ database: Database)
    throws(StoreError)
  {
    try table.read(day, database) { DimensionCount.unpackAll($0, into: &counts) }
  }

  /// Equal keys' counts added up, in `DimensionCount.precedes` order.
  static func summed(_ counts: [DimensionCount]) -> [DimensionCount] {
    var sums: [DimensionCount] = []
    for count in counts.sorted(by: { $0.precedes($1) }) {
      if let last = sums.last, last.sameKey(as: count) {
        sums[sums.count - 1].events += count.events
      } else {
        sums.append(count)
      }
    }
    return sums
  }
}
