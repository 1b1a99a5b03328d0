/// A table of packed runs (schema/0010 presence_runs, 0012
/// dimension_count_runs): per app, test flag and day, runs numbered from 0,
/// each with its entry count and its packed entries. Each fold appends a
/// run per day it touches; once a day has `maxSmallRuns` runs under
/// `fullRunEntries` entries, the fold merges them with its own, so reports
/// read few runs a day. What a merge does with the entries is the owner's.
struct RunTable {
  /// One app's and test flag's day.
  struct Day: Hashable {
    let appNo: Int64
    let isTest: Bool
    let day: Int64
  }

  let name: String
  /// A run at least this long is never merged again: a merge holds its
  /// runs and its result in memory, so this bounds the merge.
  let fullRunEntries: Int
  /// Small runs a day may have before the fold merges them.
  let maxSmallRuns: Int

  /// The highest run number of `day` (-1 without runs), and the numbers of
  /// its small runs when there are enough of them to merge, else none.
  func runsToMerge(of day: Day, _ database: Database) throws(StoreError) -> (
    highest: Int64, small: [Int64]
  ) {
    let list = try database.statement(
      "SELECT run, entries FROM \(name) WHERE app_no = ? AND is_test = ? AND day = ?")
    try Self.bind(list, day)
    defer { list.reset() }
    var highest: Int64 = -1
    var small: [Int64] = []
    while try list.step() {
      highest = max(highest, list.int64(0))
      if list.int(1) < fullRunEntries { small.append(list.int64(0)) }
    }
    return (highest, small.count >= maxSmallRuns ? small : [])
  }

  /// Hands each of the runs `numbers` of `day` to `body`, and deletes it.
  func take(
    _ numbers: [Int64], of day: Day, _ database: Database,
    _ body: (UnsafeRawBufferPointer) -> Void
  ) throws(StoreError) {
    let read = try database.statement(
      "SELECT packed FROM \(name) WHERE app_no = ? AND is_test = ? AND day = ? AND run = ?")
    let remove = try database.statement(
      "DELETE FROM \(name) WHERE app_no = ? AND is_test = ? AND day = ? AND run = ?")
    for number in numbers {
      try Self.bind(read, day)
      try read.bind(4, number)
      if try read.step() { read.withBlob(0, body) }
      read.reset()
      try Self.bind(remove, day)
      try remove.bind(4, number)
      try remove.run()
    }
  }

  /// Adds run `number` of `day`.
  func add(_ packed: [UInt8], entries: Int, number: Int64, to day: Day, _ database: Database)
    throws(StoreError)
  {
    let add = try database.statement(
      "INSERT INTO \(name) (app_no, is_test, day, run, entries, packed) VALUES (?, ?, ?, ?, ?, ?)"
    )
    try Self.bind(add, day)
    try add.bind(4, number)
    try add.bind(5, entries)
    try add.bind(6, packed)
    try add.run()
  }

  /// Hands every run of `day` to `body`, in run order.
  func read(_ day: Day, _ database: Database, _ body: (UnsafeRawBufferPointer) -> Void)
    throws(StoreError)
  {
    let read = try database.statement(
      "SELECT packed FROM \(name) WHERE app_no = ? AND is_test = ? AND day = ? ORDER BY run")
    try Self.bind(read, day)
    defer { read.reset() }
    while try read.step() { read.withBlob(0, body) }
  }

  private static func bind(_ statement: Statement, _ day: Day) throws(StoreError) {
    try statement.bind(1, day.appNo)
    try statement.bind(2, Int64(day.isTest ? 1 : 0))
    try statement.bind(3, day.day)
  }
}
