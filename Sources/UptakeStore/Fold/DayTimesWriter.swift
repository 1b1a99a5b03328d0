/// The day_times rows a fold step changes (`DayTimes`): every install
/// row whose times the step changed is merged into the row of its day that
/// covers its key, and each of those is written once, split where it grew
/// past its size.
struct DayTimesWriter {
  /// The row of a day covering an install key: the one with the greatest
  /// start at or below it.
  static let findRow = """
    SELECT install_from, bits, packed FROM day_times
    WHERE app_no = ?1 AND is_test = ?2 AND day = ?3 AND install_from <= ?4
    ORDER BY install_from DESC LIMIT 1
    """

  private struct Change {
    let appNo: Int64
    let day: Int32
    let isTest: Bool
    let entry: DayTimes.Entry
  }

  private var changes: [Change] = []
  /// The changes' versions and times, one after another.
  private var arena: [UInt8] = []

  /// An install's times on a version on a day, every one of them, packed
  /// (`SeenTimes`).
  mutating func add(_ scope: InstallScope, day: Int32, version: String, times: [UInt8]) {
    var version = version
    let versionStart = arena.count
    version.withUTF8 { arena.append(contentsOf: $0) }
    let timesStart = arena.count
    arena.append(contentsOf: times)
    changes.append(
      Change(
        appNo: scope.appNo, day: day, isTest: scope.isTest,
        entry: DayTimes.Entry(
          key: DayTimes.unsigned(scope.installKey), source: 1, version: versionStart..<timesStart,
          times: timesStart..<arena.count)))
  }

  /// Writes the changes, and forgets them.
  mutating func write(_ database: Database) throws(StoreError) {
    guard !changes.isEmpty else { return }
    defer { (changes, arena) = ([], []) }
    let unsorted = [[], arena]
    changes.sort { left, right in
      if left.appNo != right.appNo { return left.appNo < right.appNo }
      if left.isTest != right.isTest { return !left.isTest }
      if left.day != right.day { return left.day < right.day }
      return DayTimes.precedes(left.entry, right.entry, sources: unsorted)
    }
    let find = try database.statement(Self.findRow)
    let put = try database.statement(
      """
      INSERT OR REPLACE INTO day_times (app_no, is_test, day, install_from, bits, packed)
      VALUES (?, ?, ?, ?, ?, ?)
      """)
    var next = 0
    while next < changes.count {
      let first = changes[next]
      try find.bind(1, first.appNo)
      try find.bind(2, Int64(first.isTest ? 1 : 0))
      try find.bind(3, Int64(first.day))
      try find.bind(4, DayTimes.signed(first.entry.key))
      var prefix = DayTimes.Prefix.all
      var stored: [UInt8] = []
      if try find.step() {
        prefix = DayTimes.Prefix(installFrom: find.int64(0), bits: find.int64(1))
        stored = find.withBlob(2) { Array($0) }
      }
      find.reset()
      var end = next + 1
      while end < changes.count, changes[end].appNo == first.appNo,
        changes[end].isTest == first.isTest, changes[end].day == first.day,
        prefix.contains(changes[end].entry.key)
      {
        end += 1
      }
      let sources = [stored, arena]
      let merged = Self.merge(
        DayTimes.entries(of: stored, prefix: prefix, source: 0),
        changes[next..<end].map(\.entry), sources: sources)
      try DayTimes.rows(merged[...], prefix: prefix, sources: sources) {
        (row, bytes) throws(StoreError) in
        try put.bind(1, first.appNo)
        try put.bind(2, Int64(first.isTest ? 1 : 0))
        try put.bind(3, Int64(first.day))
        try put.bind(4, row.installFrom)
        try put.bind(5, Int64(row.bits))
        try put.bind(6, bytes)
        try put.run()
      }
      next = end
    }
  }

  /// The stored entries and the changed ones, both in row order, in row
  /// order: a changed entry replaces the stored one of its install and
  /// version, as it holds all of its times.
  private static func merge(
    _ stored: [DayTimes.Entry], _ changed: [DayTimes.Entry], sources: [[UInt8]]
  ) -> [DayTimes.Entry] {
    var merged: [DayTimes.Entry] = []
    merged.reserveCapacity(stored.count + changed.count)
    var (old, new) = (0, 0)
    while old < stored.count || new < changed.count {
      guard new < changed.count else {
        merged.append(stored[old])
        old += 1
        continue
      }
      guard old < stored.count else {
        merged.append(changed[new])
        new += 1
        continue
      }
      if DayTimes.sameRow(stored[old], changed[new], sources: sources) {
        merged.append(changed[new])
        (old, new) = (old + 1, new + 1)
      } else if DayTimes.precedes(stored[old], changed[new], sources: sources) {
        merged.append(stored[old])
        old += 1
      } else {
        merged.append(changed[new])
        new += 1
      }
    }
    return merged
  }
}
