import UptakeCore

/// A fold step's installs' timelines, read ahead before the step writes
/// anything: each install's install_days rows in one pass in the table's
/// key order, then the day_times rows of the days whose every time can
/// change what the step writes.
///
/// Which days those are: the days of the step's events of the install (its
/// new points go among their times) and the days it downloaded on (a
/// download's row follows every time after it that day). On any other day
/// a row's first time stands for the row: no download lies on it, so a
/// step only asks how high the day's versions go and where each version
/// first rose there, and later points of a version never rise above
/// themselves (`FunnelDownloads`). Reading every day whole would read an
/// install's whole history every time it is seen.
///
/// Why one pass over install_days and not a lookup an install: a step of a
/// flood brings a quarter of a million installs, and a seek from the root
/// for each was the fold's largest single cost (docs/performance.md, the
/// fold). Their keys come sorted, so one cursor steps from one install's
/// rows to the next's when they lie close together, as they do when a step
/// brings a good part of an app's installs, and seeks afresh past a longer
/// gap. When the rows between them run long (installs with months of days
/// each, or few of them in the step), stepping stops paying and the reader
/// seeks for each.
struct InstallTimelines {
  /// Rows stepped over at most before seeking instead.
  static let stepsBeforeSeek = 16
  /// Installs looked for by stepping before judging whether it pays...
  static let trialInstalls = 1_000
  /// ...which it does if it reaches this many of them.
  static let trialHitsToKeepStepping = 500

  /// Every install's points, one install after another, unsorted.
  private(set) var points: [TimelinePoint] = []
  /// `points[starts[i]..<starts[i + 1]]` are the points of the i-th install.
  private var starts: [Int32] = [0]

  /// The points of the i-th install of the events `read` was given, in
  /// `forEachInstall`'s order.
  func timeline(_ index: Int) -> ArraySlice<TimelinePoint> {
    points[Int(starts[index])..<Int(starts[index + 1])]
  }

  /// An install_days row: the install seen on a version on a day.
  private struct Row {
    let day: Int32
    let version: Int32
    let firstTs: Int64
  }

  /// A day of an install read whole from day_times, and where its points
  /// landed.
  private struct WholeDay {
    let install: Int32
    let day: Int32
    /// 32-bit bounds: a step holds one of these for most of its installs.
    private var start: Int32 = 0
    private var end: Int32 = 0

    init(install: Int32, day: Int32) {
      self.install = install
      self.day = day
    }

    var points: Range<Int> {
      get { Int(start)..<Int(end) }
      set { (start, end) = (Int32(newValue.lowerBound), Int32(newValue.upperBound)) }
    }
  }

  /// The timelines of each install of `events`, which come sorted as
  /// writeSeen sorts them: events with an install first, by app, test flag
  /// (false first), install key and time, so each install's events lie
  /// together and the installs come in the table's key order. Versions are
  /// numbered in `versions`, downloaded updates in `updates`.
  static func read(
    _ events: [FoldEvent], _ database: Database, _ versions: inout TextNumbering,
    _ updates: inout TextNumbering
  ) throws(StoreError) -> InstallTimelines {
    var installs: [FoldEvent] = []
    var rows: [Row] = []
    var rowStarts: [Int32] = [0]
    var wholeDays: [WholeDay] = []
    var cursor = try Cursor(database)
    defer { cursor.scan.reset() }
    try events.forEachInstall { range throws(StoreError) in
      let install = events[range.lowerBound]
      let index = Int32(installs.count)
      installs.append(install)
      let firstNew = wholeDays.count
      for event in events[range]
      where wholeDays.count == firstNew || wholeDays.last!.day != event.day {
        wholeDays.append(WholeDay(install: index, day: event.day))
      }
      try cursor.move(to: install)
      while case .at(let at) = cursor.position, at == install.installKey {
        let day = Int32(cursor.scan.int64(1))
        let version = cursor.scan.withText(2) { versions.number($0) }
        rows.append(Row(day: day, version: version, firstTs: cursor.scan.int64(3)))
        if cursor.scan.int64(4) != 0,
          !wholeDays[firstNew...].contains(where: { $0.day == day })
        {
          wholeDays.append(WholeDay(install: index, day: day))
        }
        try cursor.advance()
      }
      rowStarts.append(Int32(rows.count))
    }
    var dayPoints: [TimelinePoint] = []
    try readWholeDays(
      &wholeDays, of: installs, database, into: &dayPoints, &versions, &updates)
    wholeDays.sort { ($0.install, $0.day) < ($1.install, $1.day) }

    var timelines = InstallTimelines()
    var whole = 0
    for index in installs.indices {
      let wholeStart = whole
      while whole < wholeDays.count && wholeDays[whole].install == Int32(index) {
        timelines.points += dayPoints[wholeDays[whole].points]
        whole += 1
      }
      for row in rows[Int(rowStarts[index])..<Int(rowStarts[index + 1])]
      where !wholeDays[wholeStart..<whole].contains(where: { $0.day == row.day }) {
        timelines.points.append(
          TimelinePoint(ts: row.firstTs, version: row.version, download: TimelinePoint.noDownload))
      }
      timelines.starts.append(Int32(timelines.points.count))
    }
    return timelines
  }

  /// The points of `wholeDays` from day_times, each day's into its
  /// `points`. Sorted by app, test flag, day and install, the installs of
  /// one day_times row lie together: each row is read once for all of them.
  private static func readWholeDays(
    _ wholeDays: inout [WholeDay], of installs: [FoldEvent], _ database: Database,
    into points: inout [TimelinePoint], _ versions: inout TextNumbering,
    _ updates: inout TextNumbering
  ) throws(StoreError) {
    wholeDays.sort { left, right in
      let (a, b) = (installs[Int(left.install)], installs[Int(right.install)])
      if a.appNo != b.appNo { return a.appNo < b.appNo }
      if a.isTest != b.isTest { return !a.isTest }
      if left.day != right.day { return left.day < right.day }
      return left.install < right.install
    }
    let find = try database.statement(DayTimesWriter.findRow)
    defer { find.reset() }
    var next = 0
    while next < wholeDays.count {
      let first = installs[Int(wholeDays[next].install)]
      let day = wholeDays[next].day
      find.reset()
      try find.bind(1, first.appNo)
      try find.bind(2, Int64(first.isTest ? 1 : 0))
      try find.bind(3, Int64(day))
      try find.bind(4, first.installKey)
      // A day with rows has one from the lowest key on: none at or below a
      // key means none at all, for every install of the day.
      let found = try find.step()
      let prefix =
        found ? DayTimes.Prefix(installFrom: find.int64(0), bits: find.int64(1)) : .all
      var end = next + 1
      while end < wholeDays.count, wholeDays[end].day == day {
        let install = installs[Int(wholeDays[end].install)]
        guard install.appNo == first.appNo, install.isTest == first.isTest,
          prefix.contains(DayTimes.unsigned(install.installKey))
        else { break }
        end += 1
      }
      guard found else {
        next = end
        continue
      }
      let dayStartMs = Int64(day) * Timestamp.msPerDay
      var wanted = next
      find.withBlob(2) { row in
        DayTimes.forEach(in: row, prefix: prefix) { installKey, version, times in
          while wanted < end && installs[Int(wholeDays[wanted].install)].installKey < installKey {
            wanted += 1
          }
          guard wanted < end, installs[Int(wholeDays[wanted].install)].installKey == installKey
          else { return }
          let number = versions.number(version)
          let start =
            wholeDays[wanted].points.isEmpty
            ? points.count : wholeDays[wanted].points.lowerBound
          SeenTimes.forEach(in: times, dayStartMs: dayStartMs) { ts, download in
            points.append(
              TimelinePoint(
                ts: ts, version: number,
                download: download.map { updates.number($0) } ?? TimelinePoint.noDownload))
          }
          wholeDays[wanted].points = start..<points.count
        }
      }
      next = end
    }
  }

  /// A cursor over install_days that reaches each install's rows by
  /// stepping while that pays, and by seeking otherwise.
  private struct Cursor {
    let scan: Statement
    var position = Position.unplaced
    /// The app and test flag the cursor reads; another one must seek.
    private var scope: (appNo: Int64, isTest: Bool)?
    private var (tries, hits) = (0, 0)

    /// Where the cursor is: nowhere yet, on a row of this key, or past
    /// the scope's last row.
    enum Position {
      case unplaced
      case at(Int64)
      case end

      /// Whether the cursor must seek to reach `key`'s rows.
      func needsSeek(to key: Int64) -> Bool {
        switch self {
        case .unplaced: true
        case .at(let at): at < key
        case .end: false
        }
      }
    }

    init(_ database: Database) throws(StoreError) {
      scan = try database.statement(
        """
        SELECT install_key, day, app_version, first_ts, downloaded FROM install_days
        WHERE app_no = ?1 AND is_test = ?2 AND install_key >= ?3
        ORDER BY install_key, day, app_version
        """)
    }

    /// To the first row of `install` or, when it has none, of a later key.
    mutating func move(to install: FoldEvent) throws(StoreError) {
      let key = install.installKey
      if scope.map({ $0.appNo != install.appNo || $0.isTest != install.isTest }) ?? true {
        scope = (install.appNo, install.isTest)
        position = .unplaced
      }
      if case .at(let at) = position, at < key,
        tries < trialInstalls || hits >= trialHitsToKeepStepping
      {
        var steps = 0
        while position.needsSeek(to: key), steps < stepsBeforeSeek {
          try advance()
          steps += 1
        }
        if tries < trialInstalls {
          tries += 1
          if !position.needsSeek(to: key) { hits += 1 }
        }
      }
      if position.needsSeek(to: key) { try seek(install) }
    }

    mutating func advance() throws(StoreError) {
      position = try scan.step() ? .at(scan.int64(0)) : .end
    }

    private mutating func seek(_ install: FoldEvent) throws(StoreError) {
      scan.reset()
      try scan.bind(1, install.appNo)
      try scan.bind(2, Int64(install.isTest ? 1 : 0))
      try scan.bind(3, install.installKey)
      try advance()
    }
  }
}
