import UptakeCore

/// Folds a batch into the dimension rollups (schema/0005, 0010, 0012): the
/// dimension sets and event counts per hour (dimension_count_runs), by
/// dimension set and action. Install presence per day (presence_runs) is
/// `PresenceWriter`'s, with the sets' numbers from here.
///
/// In two halves, so the fold thread can read a step in a short read
/// transaction and write it in another (`RollupWriter.prepare`,
/// `RollupFolder.fold(_:)`): `prepare` only reads, and numbers the batch's
/// new dimension sets after the highest stored one; `write` adds those
/// sets and writes the rows. Only folds add sets, and each moves the folded
/// seq, so a fold that `RollupFolder.fold(_:)` finds still fresh finds
/// those numbers still free.
enum DimensionFold {
  /// The rows a batch adds to, counted and sorted.
  struct Prepared {
    /// The highest dims_no stored when the batch was prepared.
    let highestStored: Int64
    /// The dims_no of each of the batch's dimension sets; those above
    /// `highestStored` are new, numbered in the order `write` adds them.
    let numbers: [Int64]
    let hourly: [(key: CountKey, events: Int)]

    /// What is left of one written: nothing.
    static let written = Prepared(highestStored: 0, numbers: [], hourly: [])
  }

  /// Counts the batch's events; call while its events are in seq order,
  /// so they come an hour at a time (see `counts`).
  static func prepare(_ batch: FoldBatch, _ database: Database) throws(StoreError) -> Prepared {
    let (highestStored, numbers) = try storedNumbers(batch.dimensionSets, database)
    return Prepared(
      highestStored: highestStored, numbers: numbers, hourly: counts(batch, numbers))
  }

  /// Writes a prepared batch's new dimension sets and hourly counts.
  /// presence_runs come later, from the events sorted by install
  /// (`PresenceWriter`), with the sets' `Prepared.numbers`.
  static func write(_ prepared: Prepared, _ batch: FoldBatch, _ database: Database)
    throws(StoreError)
  {
    try addNewSets(prepared, batch.dimensionSets, database)
    try writeCounts(prepared, database)
  }

  /// The dims_no of each of the batch's dimension sets: the stored one, or
  /// for a new set the next number after the highest stored.
  private static func storedNumbers(_ sets: [DimensionSet], _ database: Database)
    throws(StoreError) -> (highestStored: Int64, numbers: [Int64])
  {
    let highestStored = try database.scalarInt("SELECT max(dims_no) FROM dimension_sets") ?? 0
    let find = try database.statement(
      """
      SELECT dims_no FROM dimension_sets WHERE app_no = ? AND update_id = ? AND app_version = ?
        AND platform IS ? AND os_version IS ?
      """)
    var next = highestStored
    var numbers: [Int64] = []
    numbers.reserveCapacity(sets.count)
    for set in sets {
      try bind(set, find)
      if try find.step() {
        numbers.append(find.int64(0))
      } else {
        next += 1
        numbers.append(next)
      }
      find.reset()
    }
    return (highestStored, numbers)
  }

  private static func addNewSets(
    _ prepared: Prepared, _ sets: [DimensionSet], _ database: Database
  ) throws(StoreError) {
    let add = try database.statement(
      """
      INSERT INTO dimension_sets (dims_no, app_no, update_id, app_version, platform, os_version)
      VALUES (?, ?, ?, ?, ?, ?)
      """)
    for (set, number) in zip(sets, prepared.numbers) where number > prepared.highestStored {
      try add.bind(1, number)
      try bind(set, add, from: 2)
      try add.run()
    }
  }

  private static func bind(_ set: DimensionSet, _ statement: Statement, from first: Int32 = 1)
    throws(StoreError)
  {
    try statement.bind(first, set.appNo)
    try statement.bind(first + 1, set.updateId)
    try statement.bind(first + 2, set.appVersion)
    try statement.bind(first + 3, set.platform)
    try statement.bind(first + 4, set.osVersion)
  }

  struct CountKey: Hashable {
    let appNo: Int64
    let isTest: Bool
    /// An hour or a day number.
    let time: Int64
    let dimsNo: Int64
    let action: UInt8
  }

  /// The batch's events per hour, dimension set and action. Events come in
  /// seq order, close to time order, so they are counted an hour at a time
  /// in an array indexed by (dimension set, test flag, action), without
  /// hashing; an hour met again later adds a second partial count, summed
  /// with the first once sorted.
  ///
  /// An event of another hour than the events around it (one that arrived
  /// late, between on-time ones) is a partial count of its own instead:
  /// with one event in ten late, switching the array's hour for each made
  /// a partial count of every bucket of the hour for nearly every event,
  /// and those, sorted and summed, were the fold's peak of memory. Counted
  /// in a dictionary, they still were: a late event's hour, day and
  /// dimension set are nearly always its own, so the dictionary summed
  /// little and held each of them at several times the size of a partial
  /// count (docs/performance.md).
  private static func counts(_ batch: FoldBatch, _ numbers: [Int64]) -> [(
    key: CountKey, events: Int
  )] {
    var current = [Int](repeating: 0, count: batch.dimensionSets.count * 8)
    var touched: [Int] = []
    var currentHour = Int64.min
    var partials: [(key: CountKey, events: Int)] = []
    func key(_ index: Int, hour: Int64) -> CountKey {
      let set = index >> 3
      return CountKey(
        appNo: batch.dimensionSets[set].appNo, isTest: index & 4 != 0, time: hour,
        dimsNo: numbers[set], action: UInt8(index & 3))
    }
    func flush() {
      for index in touched {
        partials.append((key(index, hour: currentHour), current[index]))
        current[index] = 0
      }
      touched.removeAll(keepingCapacity: true)
    }
    let events = batch.events
    for position in events.indices {
      let event = events[position]
      let hour = Timestamp.hourNumber(ms: event.timestampMs)
      let index = Int(event.dimensions) << 3 | (event.isTest ? 4 : 0) | Int(event.action)
      if hour != currentHour {
        let next = position + 1 < events.count ? events[position + 1] : nil
        if currentHour != Int64.min,
          let next, Timestamp.hourNumber(ms: next.timestampMs) != hour
        {
          partials.append((key(index, hour: hour), 1))
          continue
        }
        flush()
        currentHour = hour
      }
      if current[index] == 0 { touched.append(index) }
      current[index] += 1
    }
    flush()
    sumInPlace(&partials)
    return partials
  }

  /// dimension_count_runs: a run for each app, test flag and day. The
  /// hourly counts come sorted by app, flag and hour, so a day's lie
  /// together.
  private static func writeCounts(_ prepared: Prepared, _ database: Database)
    throws(StoreError)
  {
    var counts: [DimensionCount] = []
    var day: DimensionCountRuns.Day?
    for (key, events) in prepared.hourly {
      let keyDay = Timestamp.dayNumber(hour: key.time)
      let next = DimensionCountRuns.Day(appNo: key.appNo, isTest: key.isTest, day: keyDay)
      if let current = day, current != next {
        try DimensionCountRuns.append(counts, to: current, database)
        counts.removeAll(keepingCapacity: true)
      }
      day = next
      counts.append(
        DimensionCount(
          dimsNo: key.dimsNo, action: key.action, hourOfDay: UInt8(key.time - keyDay * 24),
          events: Int64(events)))
    }
    if let day { try DimensionCountRuns.append(counts, to: day, database) }
  }

  /// Sorts partial counts in key order and sums those of one bucket into
  /// one, in place: no second array of them at the fold's peak. Equal keys
  /// are summed, so the sort need not be stable, and the standard one's
  /// merges were a sixtieth of the fold (docs/performance.md, session 32).
  private static func sumInPlace(_ partials: inout [(key: CountKey, events: Int)]) {
    partials.sortUnstably(by: PartialOrder.self)
    var kept = 0
    for index in partials.indices {
      if kept > 0 && partials[kept - 1].key == partials[index].key {
        partials[kept - 1].events += partials[index].events
      } else {
        partials[kept] = partials[index]
        kept += 1
      }
    }
    partials.removeLast(partials.count - kept)
  }

  private enum PartialOrder: UnstableSortOrder {
    static func precedes(_ lhs: (key: CountKey, events: Int), _ rhs: (key: CountKey, events: Int))
      -> Bool
    {
      DimensionFold.precedes(lhs.key, rhs.key)
    }
  }

  private static func precedes(_ lhs: CountKey, _ rhs: CountKey) -> Bool {
    if lhs.appNo != rhs.appNo { return lhs.appNo < rhs.appNo }
    if lhs.isTest != rhs.isTest { return !lhs.isTest }
    if lhs.time != rhs.time { return lhs.time < rhs.time }
    if lhs.dimsNo != rhs.dimsNo { return lhs.dimsNo < rhs.dimsNo }
    return lhs.action < rhs.action
  }
}
