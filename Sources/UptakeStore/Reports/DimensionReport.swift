import UptakeCore

extension ReportQueries {
  /// Any grouping, from the dimension rollups plus the events not folded
  /// yet: event counts from the count runs of the range's days
  /// (`DimensionCountRuns`), distinct installs from their presence runs
  /// (`PresenceCounter`). Costs in proportion to those entries.
  func groupedFromDimensions(
    appNo: Int64, keys: [GroupKey], granularity: Granularity, range: DayRange, test: TestFilter
  ) throws(StoreError) -> [GroupedRow] {
    try database.read { () throws(StoreError) -> [GroupedRow] in
      var grouping = DimensionGrouping(keys: keys, granularity: granularity)
      let sets = try database.statement(
        """
        SELECT dims_no, update_id, app_version, platform, os_version FROM dimension_sets
        WHERE app_no = ?
        """)
      try sets.bind(1, appNo)
      while try sets.step() {
        grouping.register(
          dimsNo: sets.int64(0),
          DimensionSet(
            appNo: appNo, updateId: sets.string(1), appVersion: sets.string(2),
            platform: sets.optionalString(3), osVersion: sets.optionalString(4)))
        try checkSize(grouping.size)
      }
      sets.reset()

      let tail = try unfoldedTail(appNo: appNo)
      var sightings: [TailSighting] = []
      for event in tail.events where test.admits(isTest: event.isTest) {
        let day = Timestamp.dayNumber(ms: event.timestampMs)
        guard (range.fromDay...range.toDay).contains(day) else { continue }
        let part = grouping.part(
          of: DimensionSet(
            appNo: appNo, updateId: event.updateId, appVersion: event.appVersion,
            platform: event.platform, osVersion: event.osVersion))
        let hour = Timestamp.hourNumber(ms: event.timestampMs)
        grouping.addEvents(
          1, time: grouping.time(hour: hour),
          slot: grouping.slot(part: part, action: event.action.rawValue))
        guard let installKey = event.installKey else { continue }
        var hours = SIMD4<Int64>()
        hours[event.action.rawValue] = 1 << (hour - day * 24)
        sightings.append(TailSighting(day: day, installKey: installKey, part: part, hours: hours))
        try checkSize(grouping.size)
      }
      sightings.sort { ($0.day, $0.installKey) < ($1.day, $1.installKey) }

      let flags = [false, true].filter { test.admits(isTest: $0) }
      var counter = PresenceCounter(
        grouping, perRun: grouping.byDate || range.fromDay == range.toDay)
      if let days = try heldDays(appNo: appNo, range: range, test: test, tail: sightings) {
        try addEventCounts(&grouping, appNo: appNo, flags: flags, days: days)
        if Self.versionDaysSuffice(keys: keys, granularity: granularity, test: test) {
          try addVersionDayInstalls(&grouping, appNo: appNo, days: days, test: test, tail: tail)
        } else {
          try countInstalls(
            &grouping, &counter, appNo: appNo, flags: flags, days: days, tail: sightings)
        }
      }
      counter.finish(&grouping)
      return grouping.rows()
    }
  }

  /// Whether a grouping's installs are adoption's: the distinct installs
  /// seen on a version on a day, under one test flag (under `include` an
  /// install of both flags would count twice), which daily_versions keeps
  /// counted. Counted from the presence runs, this grouping (adoption's
  /// table with event counts) took 0.5-0.67 s over the bench's 90 days.
  private static func versionDaysSuffice(
    keys: [GroupKey], granularity: Granularity, test: TestFilter
  ) -> Bool {
    Set(keys) == [.date, .appVersion] && granularity == .day && test != .include
  }

  /// Each day and version's installs, folded and unfolded, as adoption
  /// counts them (`foldedInstallCounts`).
  private func addVersionDayInstalls(
    _ grouping: inout DimensionGrouping, appNo: Int64, days: DayRange, test: TestFilter,
    tail: RollupDelta
  ) throws(StoreError) {
    let counts = try foldedInstallCounts(appNo: appNo, range: days, test: test, tail: tail)
    for (cell, installs) in counts.versions {
      let part = grouping.part(
        of: DimensionSet(
          appNo: appNo, updateId: "", appVersion: cell.appVersion, platform: nil, osVersion: nil))
      grouping.addInstalls(installs, time: grouping.time(day: cell.day), slot: Int(part))
      try checkSize(grouping.size)
    }
  }

  /// An unfolded event of an install, as a presence row of its own.
  private struct TailSighting {
    let day: Int64
    let installKey: Int64
    let part: Int32
    let hours: SIMD4<Int64>
  }

  /// The days of `range` from the first to the last that hold count or
  /// presence runs of the app, or unfolded sightings; nil when none do.
  /// The walks below go a day at a time, and a range may span 3.65
  /// million days (0000-01-01 to 9999-12-31): over every one of them a
  /// report on a few days of events took seconds. Days outside these hold
  /// nothing to add, so the answer is the same.
  private func heldDays(appNo: Int64, range: DayRange, test: TestFilter, tail: [TailSighting])
    throws(StoreError) -> DayRange?
  {
    let span = try database.statement(
      """
      SELECT min(day), max(day) FROM (
        SELECT day FROM dimension_count_runs
        WHERE app_no = ?1 AND day BETWEEN ?2 AND ?3 AND \(test.sqlCondition)
        UNION ALL
        SELECT day FROM presence_runs
        WHERE app_no = ?1 AND day BETWEEN ?2 AND ?3 AND \(test.sqlCondition)
      )
      """)
    try bindScope(span, appNo: appNo, from: range.fromDay, through: range.toDay)
    defer { span.reset() }
    var held: ClosedRange<Int64>? =
      try span.step() && !span.isNull(0) ? span.int64(0)...span.int64(1) : nil
    // The sightings are in day order.
    if let first = tail.first?.day, let last = tail.last?.day {
      held = held.map { min($0.lowerBound, first)...max($0.upperBound, last) } ?? first...last
    }
    return held.flatMap(range.clamped(to:))
  }

  /// Adds the count runs' events, a day at a time. By day, a day's counts
  /// are summed in an array by slot first: its runs hold an entry per
  /// hour, up to 24 times the groups a day has.
  private func addEventCounts(
    _ grouping: inout DimensionGrouping, appNo: Int64, flags: [Bool], days: DayRange
  ) throws(StoreError) {
    var counts: [DimensionCount] = []
    var sums = [Int](repeating: 0, count: grouping.hourly ? 0 : grouping.slotCount)
    var touched: [Int] = []
    for day in stride(from: days.fromDay, through: days.toDay, by: 1) {
      counts.removeAll(keepingCapacity: true)
      for isTest in flags {
        try DimensionCountRuns.read(
          DimensionCountRuns.Day(appNo: appNo, isTest: isTest, day: day), into: &counts, database)
      }
      for count in counts {
        let slot = grouping.slot(
          part: try grouping.part(dimsNo: count.dimsNo), action: Int(count.action))
        if grouping.hourly {
          grouping.addEvents(
            Int(count.events), time: grouping.time(hour: day * 24 + Int64(count.hourOfDay)),
            slot: slot)
        } else {
          if sums[slot] == 0 { touched.append(slot) }
          sums[slot] += Int(count.events)
        }
      }
      for slot in touched {
        grouping.addEvents(sums[slot], time: grouping.time(day: day), slot: slot)
        sums[slot] = 0
      }
      touched.removeAll(keepingCapacity: true)
      try checkSize(grouping.size)
    }
  }

  /// Walks each day's presence runs, of every test flag, and the unfolded
  /// sightings together, in install order, so that an install's rows of a
  /// day meet the counter as one run whichever flag or source they come
  /// from.
  private func countInstalls(
    _ grouping: inout DimensionGrouping, _ counter: inout PresenceCounter, appNo: Int64,
    flags: [Bool], days: DayRange, tail: [TailSighting]
  ) throws(StoreError) {
    var tailIndex = 0
    let runs = PresenceRunSet()
    for day in stride(from: days.fromDay, through: days.toDay, by: 1) {
      runs.removeAll()
      for isTest in flags {
        try PresenceRuns.read(
          PresenceRuns.Day(appNo: appNo, isTest: isTest, day: day), into: runs, database)
      }
      var entries = counter.needsInstallOrder ? runs.entries() : runs.entriesRunByRun()
      while let entry = entries.next() {
        // The day's unfolded sightings meet the counter between the stored
        // entries, in install order (when it needs the order; else all
        // of them are met by the end of the day all the same).
        while tailIndex < tail.count, tail[tailIndex].day == day,
          tail[tailIndex].installKey < entry.installKey
        {
          Self.count(tail[tailIndex], day: day, &counter, &grouping)
          tailIndex += 1
        }
        counter.add(
          day: day, installKey: entry.installKey, part: try grouping.part(dimsNo: entry.dimsNo),
          hours: entry.hours, &grouping)
      }
      while tailIndex < tail.count, tail[tailIndex].day == day {
        Self.count(tail[tailIndex], day: day, &counter, &grouping)
        tailIndex += 1
      }
      try checkSize(grouping.size)
    }
  }

  private static func count(
    _ sighting: TailSighting, day: Int64, _ counter: inout PresenceCounter,
    _ grouping: inout DimensionGrouping
  ) {
    counter.add(
      day: day, installKey: sighting.installKey, part: sighting.part, hours: sighting.hours,
      &grouping)
  }
}
