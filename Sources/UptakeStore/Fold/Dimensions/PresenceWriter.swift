import UptakeCore

/// presence_runs from a fold step's events: each day's entries (an install
/// and dimension set with its hour bits per action), appended as runs of
/// that day of at most `PresenceRuns.writtenRunEntries` entries.
///
/// Why from the events as `RollupWriter.writeSeen` left them, by install
/// and time, with a run being packed for each day at once: a day's entries
/// then come in install order as they are, where sorting the step's events
/// by day and install for them was a thirtieth of the fold (`perf`,
/// docs/performance.md, session 32). A copy of every event reduced to its
/// entry would have lived beside the step's events at the fold's peak of
/// memory, which bounds the step's size (`BatchWriter.Limits.maxFoldStepEvents`).
enum PresenceWriter {
  /// Writes the entries of `events`, sorted as `writeSeen` sorts them:
  /// those with an install first, by app, test flag and install, then
  /// time. `numbers` are the dims_no of the batch's dimension sets.
  static func write(_ events: [FoldEvent], numbers: [Int64], _ database: Database)
    throws(StoreError)
  {
    var runs = DayRuns(events)
    var sightings: [(dimsNo: Int64, action: UInt8, hourOfDay: UInt8)] = []
    var start = 0
    while start < events.count && events[start].hasInstall {
      // An install's events of a day: together, as its events come by time.
      let first = events[start]
      var end = start + 1
      while end < events.count && events[end].isSameInstall(as: first)
        && events[end].day == first.day
      {
        end += 1
      }
      let day = PresenceRuns.Day(appNo: first.appNo, isTest: first.isTest, day: Int64(first.day))
      // They are few: their entries in dims_no order from a small sort.
      sightings.removeAll(keepingCapacity: true)
      for event in events[start..<end] {
        let hour = Timestamp.hourNumber(ms: event.timestampMs) - Int64(event.day) * 24
        sightings.append((numbers[Int(event.dimensions)], event.action, UInt8(hour)))
      }
      sightings.sort { $0.dimsNo < $1.dimsNo }
      var entry: PresenceEntry?
      for sighting in sightings {
        let bit = Int64(1) << Int64(sighting.hourOfDay)
        if entry?.dimsNo != sighting.dimsNo {
          if let entry { try runs.add(entry, to: day, database) }
          entry = PresenceEntry(installKey: first.installKey, dimsNo: sighting.dimsNo, hours: .zero)
        }
        entry?.hours[Int(sighting.action)] |= bit
      }
      if let entry { try runs.add(entry, to: day, database) }
      start = end
    }
    try runs.flush(database)
  }

  /// A run being packed for each day the step brings. A step brings
  /// today's events and a few days' late ones: the day of the last entry
  /// is checked first, then the others in turn.
  private struct DayRuns {
    private var builders: [RunBuilder] = []
    private var last = 0
    /// Each day's events with an install: no more entries than that.
    private var dayEvents = PairCounts()

    init(_ events: [FoldEvent]) {
      for event in events where event.hasInstall {
        dayEvents.add(
          PairCounts.Key(appNo: event.appNo, isTest: event.isTest, day: Int64(event.day)))
      }
    }

    mutating func add(_ entry: PresenceEntry, to day: PresenceRuns.Day, _ database: Database)
      throws(StoreError)
    {
      if last >= builders.count || builders[last].day != day {
        if let known = builders.firstIndex(where: { $0.day == day }) {
          last = known
        } else {
          let events = dayEvents[PairCounts.Key(appNo: day.appNo, isTest: day.isTest, day: day.day)]
          builders.append(
            RunBuilder(day: day, capacity: min(events, PresenceRuns.writtenRunEntries)))
          last = builders.count - 1
        }
      }
      try builders[last].add(entry, database)
    }

    mutating func flush(_ database: Database) throws(StoreError) {
      for index in builders.indices { try builders[index].flush(database) }
    }
  }

  /// One day's run being packed: appended when it is full, and at the
  /// step's end. An entry ends a run only whole.
  private struct RunBuilder {
    let day: PresenceRuns.Day
    private var packed: [UInt8] = []
    private var count = 0

    init(day: PresenceRuns.Day, capacity: Int) {
      self.day = day
      // Room for a whole run at once: grown by doubling, the array was
      // copied into a fresh mapping at each step, whose pages the kernel
      // then zeroed (docs/performance.md). Reserved pages never written
      // cost nothing.
      packed.reserveCapacity(capacity * 14)
    }

    mutating func add(_ entry: PresenceEntry, _ database: Database) throws(StoreError) {
      if count == PresenceRuns.writtenRunEntries { try flush(database) }
      entry.pack(into: &packed)
      count += 1
    }

    mutating func flush(_ database: Database) throws(StoreError) {
      if count > 0 {
        try PresenceRuns.append(packed: packed, count: count, to: day, database)
      }
      packed.removeAll(keepingCapacity: true)
      count = 0
    }
  }
}
