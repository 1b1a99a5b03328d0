/// `test=include` funnels: each downloading install's version changes of
/// both test flags, so its upgrade is walked from its download rows'
/// chains (schema/0009) instead of climbing through `version_changes`.
///
/// A download row carries the changes of its own flag only. An install
/// with rows of one flag can still have changes of the other (a device with
/// test and non-test events); those come from the few test-flag changes in
/// the range (`version_changes` with is_test = 1 is small), and, for the
/// few installs whose downloads are all test events, from their non-test
/// timeline in `install_days`.
struct FunnelBothFlags {
  typealias Change = (ts: Int64, from: Int32, to: Int32)

  /// Each downloading install's changes so far, and which flags' download
  /// rows they came from (bit 0: non-test, bit 1: test).
  private(set) var changes: [Int64: (list: [Change], flags: UInt8)] = [:]

  mutating func addRow(_ install: Int64, isTest: Bool, chain: [Change]) {
    var entry = changes[install] ?? ([], 0)
    entry.list += chain
    entry.flags |= isTest ? 2 : 1
    changes[install] = entry
  }

  /// Adds the changes of the flag an install has no download row of.
  mutating func completeOtherFlags(
    _ database: Database, appNo: Int64, fromDay: Int64, throughDay: Int64,
    _ versions: inout TextNumbering
  ) throws(StoreError) {
    let testChanges = try database.statement(
      """
      SELECT install_key, ts, from_version, to_version FROM version_changes
      WHERE app_no = ? AND is_test = 1 AND day BETWEEN ? AND ?
      """)
    try testChanges.bind(1, appNo)
    try testChanges.bind(2, fromDay)
    try testChanges.bind(3, throughDay)
    while try testChanges.step() {
      let install = testChanges.int64(0)
      guard let entry = changes[install], entry.flags & 2 == 0 else { continue }
      changes[install]?.list.append(
        (
          testChanges.int64(1), testChanges.withText(2) { versions.number($0) },
          testChanges.withText(3) { versions.number($0) }
        ))
    }
    testChanges.reset()

    let timeline = try database.statement(
      """
      SELECT day, app_version, first_ts FROM install_days
      WHERE app_no = ? AND is_test = 0 AND install_key = ?
      """)
    for (install, entry) in changes where entry.flags & 1 == 0 {
      try timeline.bind(1, appNo)
      try timeline.bind(2, install)
      var rows: [SeenRow] = []
      while try timeline.step() {
        rows.append(
          SeenRow(
            day: Int32(timeline.int64(0)), version: timeline.withText(1) { versions.number($0) },
            firstTs: timeline.int64(2)))
      }
      timeline.reset()
      for change in FunnelDownloads.changes(rows, &versions) {
        changes[install]?.list.append((change.ts, change.from, change.to))
      }
    }
  }
}
