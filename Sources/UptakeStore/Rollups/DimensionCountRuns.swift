/// The events of one hour of a day with one dimension set and action: a
/// row of the old hourly_dimension_counts as dimension_count_runs packs it
/// (schema/0012). The dimension set's number and the count as varints, the
/// action and the hour of the day a byte each: 4–6 bytes for most.
struct DimensionCount: PackedEntry, Equatable {
  var dimsNo: Int64
  var action: UInt8
  var hourOfDay: UInt8
  var events: Int64

  /// The order a merged run keeps, so equal keys lie together.
  func precedes(_ other: DimensionCount) -> Bool {
    if dimsNo != other.dimsNo { return dimsNo < other.dimsNo }
    if action != other.action { return action < other.action }
    return hourOfDay < other.hourOfDay
  }

  func sameKey(as other: DimensionCount) -> Bool {
    dimsNo == other.dimsNo && action == other.action && hourOfDay == other.hourOfDay
  }

  func pack(into bytes: inout [UInt8]) {
    Varint.pack(UInt64(bitPattern: dimsNo), into: &bytes)
    bytes.append(action)
    bytes.append(hourOfDay)
    Varint.pack(UInt64(bitPattern: events), into: &bytes)
  }

  /// The entry at `offset` of a dimension_count_runs blob, moving `offset`
  /// past it; nil at the end, or where the blob is cut short.
  static func unpack(_ blob: UnsafeRawBufferPointer, _ offset: inout Int) -> DimensionCount? {
    var at = offset
    guard let dims = Varint.unpack(blob, &at), at + 2 <= blob.count else { return nil }
    let action = blob[at]
    let hourOfDay = blob[at + 1]
    at += 2
    guard let events = Varint.unpack(blob, &at) else { return nil }
    offset = at
    return DimensionCount(
      dimsNo: Int64(bitPattern: dims), action: action, hourOfDay: hourOfDay,
      events: Int64(bitPattern: events))
  }

  /// Appends the entries of a dimension_count_runs blob to `counts`.
  static func unpackAll(_ blob: UnsafeRawBufferPointer, into counts: inout [DimensionCount]) {
    var offset = 0
    while let count = unpack(blob, &offset) { counts.append(count) }
  }
}

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
