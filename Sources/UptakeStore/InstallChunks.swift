/// Members of daily_counts' buckets packed into blobs, 512 to a row
/// (schema/0007 and 0008): the fold appends what is new to a bucket, and a
/// report over one update reads a few hundred rows instead of one row per
/// install and day. SQLite spends ~120 ns stepping a row whatever its
/// width, so for a busy update the rows, not the bytes, were the cost.
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
