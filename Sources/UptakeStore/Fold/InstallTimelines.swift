import UptakeCore

/// The install_days rows of a run of a fold step's installs, read ahead in
/// the table's key order, before the step writes theirs, as each install's
/// timeline: every time it was seen, with its version and what it
/// downloaded then (`SeenTimes`).
///
/// Why not a lookup an install: a step of a flood brings a quarter of a
/// million installs, and a seek from the root of install_days for each
/// was the fold's largest single cost (docs/performance.md, the fold).
/// Their keys come sorted, so one cursor steps from
/// one install's rows to the next's when they lie close together, as
/// they do when a step brings a good part of an app's installs, and seeks
/// afresh past a longer gap. When the rows between them run long (installs
/// with months of days each, or few of them in the step), stepping stops
/// paying and the reader seeks for each.
struct InstallTimelines {
  /// Rows stepped over at most before seeking instead.
  static let stepsBeforeSeek = 16
  /// Installs looked for by stepping before judging whether it pays...
  static let trialInstalls = 1_000
  /// ...which it does if it reaches this many of them.
  static let trialHitsToKeepStepping = 500

  /// Every install's points, one install after another, each install's
  /// in the order its rows were read (`SeenWriter` sorts them).
  private(set) var points: [TimelinePoint] = []
  /// `points[starts[i]..<starts[i + 1]]` are the points of the i-th install.
  private var starts: [Int32] = [0]

  /// The points of the i-th install of the events `read` was given, in
  /// `forEachInstall`'s order.
  func timeline(_ index: Int) -> ArraySlice<TimelinePoint> {
    points[Int(starts[index])..<Int(starts[index + 1])]
  }

  /// Reads a step's timelines a run of installs at a time, for the fold to
  /// write each run's rows before reading the next: a whole step's
  /// timelines, every point of a few hundred thousand installs' histories,
  /// were the fold's peak of memory, and grew with the installs' histories
  /// (docs/performance.md).
  struct Reader {
    private var cursor: Cursor

    init(_ database: Database) throws(StoreError) {
      cursor = try Cursor(database)
    }

    /// The rows of each install of `events`, a run of whole installs after
    /// those of the previous call, sorted as writeSeen sorts them: events
    /// with an install first, by app, test flag (false first) and install
    /// key, so each install's events lie together and the installs come in
    /// the table's key order. Versions are numbered in `versions`,
    /// downloaded updates in `updates`. No statement stays open, so the
    /// caller may write install_days before the next call.
    mutating func read(
      _ events: ArraySlice<FoldEvent>, _ versions: inout TextNumbering,
      _ updates: inout TextNumbering
    ) throws(StoreError) -> InstallTimelines {
      defer { cursor.release() }
      var timelines = InstallTimelines()
      try events.forEachInstall { range throws(StoreError) in
        let install = events[range.lowerBound]
        try cursor.move(to: install)
        while case .at(let at) = cursor.position, at == install.installKey {
          let version = cursor.scan.withText(2) { versions.number($0) }
          cursor.scan.withBlob(3) { times in
            SeenTimes.forEach(in: times, dayStartMs: cursor.scan.int64(1) * Timestamp.msPerDay) {
              ts, download in
              timelines.points.append(
                TimelinePoint(
                  ts: ts, version: version,
                  download: download.map { updates.number($0) } ?? TimelinePoint.noDownload))
            }
          }
          try cursor.advance()
        }
        timelines.starts.append(Int32(timelines.points.count))
      }
      return timelines
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
        -- By install key alone: the key's order (schema/0020) puts an
        -- install's rows together, and ORDER BY its later columns made
        -- SQLite sort each install's rows again.
        SELECT install_key, day, app_version, times FROM install_days
        WHERE app_no = ?1 AND is_test = ?2 AND install_key >= ?3
        ORDER BY install_key
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

    /// Ends the scan; the next install seeks.
    mutating func release() {
      scan.reset()
      position = .unplaced
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
