/// Members of daily_counts' buckets packed into blobs, 512 to a row
/// (schema/0007 and 0008): the fold appends what is new to a bucket, and a
/// report over one update reads a few hundred rows instead of one row per
/// install and day. SQLite's cost is per row stepped whatever its width,
/// so for a busy update the rows, not the bytes, were the cost
/// (docs/performance.md).
///
/// Two tables share the layout (bucket key, `chunk`, `entries`, `packed`):
/// `daily_install_chunks` packs every bucket's install keys, for distinct
/// counts; `funnel_impression_chunks` packs impression buckets' first
/// impressions, for the funnel's cohort.
enum InstallChunks {
  /// Entries a chunk holds: a bucket of n members is ceil(n / 512) rows,
  /// and an append rewrites at most one partial chunk.
  static let entriesPerChunk = 512

  /// One bucket of daily_counts: app, test flag, update, day, action.
  struct Bucket: Hashable {
    var appNo: Int64
    var isTest: Bool
    var updateId: String
    var day: Int64
    var action: Int

    /// Binds the bucket's key to parameters 1–5.
    func bind(to statement: Statement) throws(StoreError) {
      try statement.bind(1, appNo)
      try statement.bind(2, Int64(isTest ? 1 : 0))
      try statement.bind(3, updateId)
      try statement.bind(4, day)
      try statement.bind(5, action)
    }
  }

  /// Reads one bucket's packed entries back: for the fold, whether
  /// installs are members already, and for the reports' unfolded tail,
  /// which of its installs the folded members hold.
  struct Reader {
    private let members: Statement
    private let impressions: Statement

    init(_ database: Database) throws(StoreError) {
      members = try database.statement(
        """
        SELECT packed FROM daily_install_chunks
        WHERE app_no = ? AND is_test = ? AND update_id = ? AND day = ? AND action = ?
        """)
      impressions = try database.statement(
        """
        SELECT packed FROM funnel_impression_chunks
        WHERE app_no = ? AND is_test = ? AND update_id = ? AND day = ? AND action = ?
        """)
    }

    /// Which of `installs` are members of `bucket`.
    func members(of bucket: Bucket, among installs: Set<Int64>) throws(StoreError) -> Set<Int64> {
      var found: Set<Int64> = []
      // Every member of the bucket is looked up: without the Hasher, as
      // install keys are hashes already (through a Set the scan paid a
      // SipHash a member, docs/performance.md).
      let sought = InstallSet(installs)
      try bucket.bind(to: members)
      defer { members.reset() }
      while try members.step() {
        members.withBlob(0) { blob in
          Int64.forEachPacked(in: blob) { key in
            if sought.contains(key) { found.insert(key) }
          }
        }
      }
      return found
    }

    /// The earliest first impression in `bucket` of each of `installs` that
    /// has one.
    func firstImpressionTimes(of bucket: Bucket, among installs: Set<Int64>) throws(StoreError)
      -> [Int64: Int64]
    {
      var earliest: [Int64: Int64] = [:]
      guard !installs.isEmpty else { return earliest }
      let sought = InstallSet(installs)
      try bucket.bind(to: impressions)
      defer { impressions.reset() }
      while try impressions.step() {
        impressions.withBlob(0) { blob in
          FirstImpression.forEachPacked(in: blob) { key, timestampMs, _ in
            guard sought.contains(key) else { return }
            earliest[key] = min(earliest[key] ?? .max, timestampMs)
          }
        }
      }
      return earliest
    }
  }

  /// Appends entries to buckets of one table, filling each bucket's last
  /// chunk before starting the next. Used inside the fold's transaction.
  struct Writer<Entry: PackedEntry> {
    private let last: Statement
    private let write: Statement

    init(_ database: Database, table: String) throws(StoreError) {
      last = try database.statement(
        """
        SELECT chunk, entries, packed FROM \(table)
        WHERE app_no = ? AND is_test = ? AND update_id = ? AND day = ? AND action = ?
        ORDER BY chunk DESC LIMIT 1
        """)
      write = try database.statement(
        """
        INSERT OR REPLACE INTO \(table)
          (app_no, is_test, update_id, day, action, chunk, entries, packed)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """)
    }

    func append(_ entries: [Entry], to bucket: Bucket) throws(StoreError) {
      guard !entries.isEmpty else { return }
      try bucket.bind(to: last)
      var chunk: Int64 = 0
      var packed: [UInt8] = []
      var count = 0
      if try last.step() {
        chunk = last.int64(0)
        if last.int(1) < entriesPerChunk {
          count = last.int(1)
          last.withBlob(2) { packed.append(contentsOf: $0) }
        } else {
          chunk += 1
        }
      }
      last.reset()
      var remaining = entries[...]
      while !remaining.isEmpty {
        let taken = remaining.prefix(entriesPerChunk - count)
        for entry in taken { entry.pack(into: &packed) }
        count += taken.count
        remaining = remaining.dropFirst(taken.count)
        try bucket.bind(to: write)
        try write.bind(6, chunk)
        try write.bind(7, count)
        try write.bind(8, packed)
        try write.run()
        chunk += 1
        count = 0
        packed.removeAll(keepingCapacity: true)
      }
    }
  }
}
