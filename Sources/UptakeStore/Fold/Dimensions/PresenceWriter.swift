import UptakeCore

/// presence_runs from a fold step's events: each day's entries (an install
/// and dimension set with its hour bits per action), appended as runs of
/// that day of at most `PresenceRuns.writtenRunEntries` entries.
///
/// Why straight from the events, sorted in place: a copy of every event
/// reduced to its entry (32 bytes) lived beside the step's events (48) at
/// the fold's peak of memory, and the step's size is bounded by that peak
/// (`BatchWriter.Limits.maxFoldStepEvents`, docs/performance.md).
enum PresenceWriter {
  /// Sorts `events` by app, test flag, day and install (those with an
  /// install first) and writes their entries. `numbers` are the dims_no of
  /// the batch's dimension sets.
  static func write(_ events: inout [FoldEvent], numbers: [Int64], _ database: Database)
    throws(StoreError)
  {
    events.sortUnstably(by: PresenceOrder.self)
    var run = RunBuilder(capacity: min(events.count, PresenceRuns.writtenRunEntries))
    var sightings: [(dimsNo: Int64, action: UInt8, hourOfDay: UInt8)] = []
    var start = 0
    while start < events.count && events[start].hasInstall {
      let first = events[start]
      var end = start + 1
      while end < events.count && events[end].isSameInstall(as: first)
        && events[end].day == first.day
      {
        end += 1
      }
      let day = PresenceRuns.Day(appNo: first.appNo, isTest: first.isTest, day: Int64(first.day))
      try run.begin(day, database)
      // An install's events of a day are few: its entries in dims_no
      // order from a small sort.
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
          if let entry { try run.add(entry, database) }
          entry = PresenceEntry(installKey: first.installKey, dimsNo: sighting.dimsNo, hours: .zero)
        }
        entry?.hours[Int(sighting.action)] |= bit
      }
      if let entry { try run.add(entry, database) }
      start = end
    }
    try run.flush(database)
  }

  /// presence_runs' order as far as events hold it: app, test flag, day,
  /// install. Events without an install (no presence) come last.
  private enum PresenceOrder: UnstableSortOrder {
    static func precedes(_ lhs: FoldEvent, _ rhs: FoldEvent) -> Bool {
      if lhs.hasInstall != rhs.hasInstall { return lhs.hasInstall }
      if lhs.appNo != rhs.appNo { return lhs.appNo < rhs.appNo }
      if lhs.isTest != rhs.isTest { return !lhs.isTest }
      if lhs.day != rhs.day { return lhs.day < rhs.day }
      return lhs.installKey < rhs.installKey
    }
  }

  /// One day's run being packed: appended when the day changes or it is
  /// full. An entry ends a run only whole.
  private struct RunBuilder {
    private var packed: [UInt8] = []
    private var count = 0
    private var day: PresenceRuns.Day?

    init(capacity: Int) {
      // Room for a whole run at once: grown by doubling, the array was
      // copied into a fresh mapping at each step, whose pages the kernel
      // then zeroed (docs/performance.md). Reserved pages never written
      // cost nothing.
      packed.reserveCapacity(capacity * 14)
    }

    mutating func begin(_ next: PresenceRuns.Day, _ database: Database) throws(StoreError) {
      guard next != day else { return }
      try flush(database)
      day = next
    }

    mutating func add(_ entry: PresenceEntry, _ database: Database) throws(StoreError) {
      if count == PresenceRuns.writtenRunEntries { try flush(database) }
      entry.pack(into: &packed)
      count += 1
    }

    mutating func flush(_ database: Database) throws(StoreError) {
      if let day, count > 0 {
        try PresenceRuns.append(packed: packed, count: count, to: day, database)
      }
      packed.removeAll(keepingCapacity: true)
      count = 0
    }
  }
}
