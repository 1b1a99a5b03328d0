import UptakeCore

/// The writer's side of `DailyDistinctValues`: fills it from what is
/// stored, keeps it in step with the events file inside each write
/// transaction, and drops the days no event can be stored on any more. One
/// per writing connection, used only by its writer thread, so checking an
/// event and committing it are one step for every other batch.
///
/// Exact across restarts and processes: the counts are the stored events'
/// values, never a tally that a restart would reset. At start they are
/// read from the report aggregates (`dimension_sets` by the days of
/// `dimension_count_runs`, which every folded event is counted in) and the
/// events not folded yet; at each transaction, from the events another
/// process (an import beside the daemon) stored since.
struct DistinctValueCap {
  /// Distinct values per app, field and day unless configured otherwise:
  /// far above what an app really sends (a few update ids, app versions
  /// and OS versions a day; hundreds for an app with nightly builds), low
  /// enough that a hostile client's values stay a few thousand rows of any
  /// report a day.
  static let defaultLimit = 1000

  /// What loading the stored values found and cost, for the start's log.
  struct Loaded {
    let values: Int
    let tailEvents: Int
    let seconds: Double
  }

  private(set) var values: DailyDistinctValues
  private let now: () -> Int64
  /// Every event with seq <= this has its values in `values`; nil before
  /// the first load.
  private var seenThroughSeq: Int64?
  /// The oldest day kept; earlier ones are dropped as time passes.
  private var firstDay: Int64 = .min

  init(limit: Int = defaultLimit, now: @escaping () -> Int64 = { WallClock.nowMs() }) {
    values = DailyDistinctValues(limit: limit)
    self.now = now
  }

  /// The oldest day an event may still be stored on, less one: a batch
  /// validated just before midnight may reach the writer just after.
  private func firstDayInPlay() -> Int64 {
    Timestamp.dayNumber(ms: now() - EventValidator.maxAgeMs) - 1
  }

  var isLoaded: Bool { seenThroughSeq != nil }

  /// Reads the values of every stored event of the days in play. Call
  /// inside a transaction.
  @discardableResult
  mutating func load(_ database: Database) throws(StoreError) -> Loaded {
    let started = WallClock.nowMs()
    firstDay = firstDayInPlay()
    values = DailyDistinctValues(limit: values.limit)
    // The aggregates first, then the events: a fold that commits in
    // between makes both cover its events, and a value counted twice is
    // still one value.
    let foldedSeq = try RollupFolder.foldedSeq(database)
    try loadFolded(database)
    let newest = try database.newestEventSeq()
    let tailEvents = try addEvents(database, after: foldedSeq, through: newest)
    seenThroughSeq = newest
    return Loaded(
      values: values.valueCount, tailEvents: tailEvents,
      seconds: Double(WallClock.nowMs() - started) / 1000)
  }

  /// Brings the values up to what is stored: loads them the first time,
  /// else adds what other processes stored since, and drops days that
  /// left the window. Call inside the write transaction, before `admit`,
  /// with the newest stored event's seq (`Database.newestEventSeq`).
  mutating func synchronize(_ database: Database, newestSeq newest: Int64) throws(StoreError) {
    guard let seen = seenThroughSeq else {
      try load(database)
      return
    }
    if newest < seen {
      // The events went back (a restored file): start again from them.
      try load(database)
      return
    }
    if newest > seen { try addEvents(database, after: seen, through: newest) }
    seenThroughSeq = newest
    let first = firstDayInPlay()
    if first > firstDay {
      values.forgetDays(before: first)
      firstDay = first
    }
  }

  /// Admits the event, or says why it is refused (`DailyDistinctValues`).
  mutating func admit(_ event: Event, appNo: Int64) -> DailyDistinctValues.Refusal? {
    values.admit(event, appNo: appNo)
  }

  /// The transaction committed; its last event is `lastSeq` (0: none).
  mutating func didCommit(lastSeq: Int64) {
    values.commit()
    if let seen = seenThroughSeq, lastSeq > seen { seenThroughSeq = lastSeq }
  }

  /// The transaction rolled back: nothing it admitted was stored.
  mutating func didRollBack() {
    values.rollBack()
  }

  /// The values of the folded events of the days in play: each day's
  /// dimension sets from its hourly counts, then each set's texts.
  private mutating func loadFolded(_ database: Database) throws(StoreError) {
    let runs = try database.statement(
      "SELECT day, packed FROM rollups.dimension_count_runs WHERE day >= ?")
    try runs.bind(1, firstDay)
    var setDays: [Int64: Set<Int64>] = [:]
    var counts: [DimensionCount] = []
    while try runs.step() {
      let day = runs.int64(0)
      counts.removeAll(keepingCapacity: true)
      runs.withBlob(1) { DimensionCount.unpackAll($0, into: &counts) }
      for count in counts { setDays[count.dimsNo, default: []].insert(day) }
    }
    runs.reset()
    let set = try database.statement(
      "SELECT app_no, update_id, app_version, os_version FROM rollups.dimension_sets "
        + "WHERE dims_no = ?")
    for (dimsNo, days) in setDays {
      try set.bind(1, dimsNo)
      if try set.step() {
        let appNo = set.int64(0)
        let updateId = set.string(1)
        let appVersion = set.string(2)
        let osVersion = set.optionalString(3)
        for day in days {
          values.record(
            appNo: appNo, day: day, updateId: updateId, appVersion: appVersion,
            osVersion: osVersion)
        }
      }
      set.reset()
    }
  }

  /// Records the values of the events with seq in (`after`, `through`] on
  /// the days in play, and returns how many events it read.
  @discardableResult
  private mutating func addEvents(_ database: Database, after: Int64, through: Int64)
    throws(StoreError) -> Int
  {
    guard through > after else { return 0 }
    let events = try database.statement(
      """
      SELECT app_no, ts, update_id, app_version, os_version FROM main.events
      WHERE seq > ? AND seq <= ? AND ts >= ?
      """)
    try events.bind(1, after)
    try events.bind(2, through)
    try events.bind(3, firstDay * Timestamp.msPerDay)
    defer { events.reset() }
    var read = 0
    while try events.step() {
      read += 1
      values.record(
        appNo: events.int64(0), day: Timestamp.dayNumber(ms: events.int64(1)),
        updateId: events.string(2), appVersion: events.string(3),
        osVersion: events.optionalString(4))
    }
    return read
  }
}
