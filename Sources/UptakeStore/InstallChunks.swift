/// The members of daily_installs' buckets packed into blobs
/// (schema/0007_daily_install_chunks.sql): the fold appends the install keys
/// new to a bucket, and a report over one update reads a few hundred rows
/// instead of a row per install and day.
enum InstallChunks {
  /// Keys a chunk holds: 4 KiB of blob, so a bucket of n installs is
  /// ceil(n / 512) rows and an append rewrites at most one partial chunk.
  static let keysPerChunk = 512

  /// One daily_installs bucket.
  struct Bucket: Hashable {
    var appNo: Int64
    var isTest: Bool
    var updateId: String
    var day: Int64
    var action: Int
  }

  /// Appends the keys new to each bucket, filling the bucket's last chunk
  /// before starting the next. Used inside the fold's transaction.
  struct Writer {
    private let last: Statement
    private let write: Statement

    init(_ database: Database) throws(StoreError) {
      last = try database.statement(
        """
        SELECT chunk, installs, keys FROM daily_install_chunks
        WHERE app_no = ? AND is_test = ? AND update_id = ? AND day = ? AND action = ?
        ORDER BY chunk DESC LIMIT 1
        """)
      write = try database.statement(
        """
        INSERT OR REPLACE INTO daily_install_chunks
          (app_no, is_test, update_id, day, action, chunk, installs, keys)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """)
    }

    /// `keys` must be new to the bucket (their daily_installs rows were
    /// just inserted), so a bucket holds each key once.
    func append(_ keys: [Int64], to bucket: Bucket) throws(StoreError) {
      guard !keys.isEmpty else { return }
      try bindBucket(last, bucket)
      var chunk: Int64 = 0
      var packed: [UInt8] = []
      if try last.step() {
        chunk = last.int64(0)
        if last.int(1) < keysPerChunk {
          last.withBlob(2) { packed.append(contentsOf: $0) }
        } else {
          chunk += 1
        }
      }
      last.reset()
      var remaining = keys[...]
      while !remaining.isEmpty {
        let room = keysPerChunk - packed.count / 8
        pack(remaining.prefix(room), into: &packed)
        remaining = remaining.dropFirst(room)
        try bindBucket(write, bucket)
        try write.bind(6, chunk)
        try write.bind(7, packed.count / 8)
        try write.bind(8, packed)
        try write.run()
        chunk += 1
        packed.removeAll(keepingCapacity: true)
      }
    }
  }

  /// Calls `body` with every key of a `keys` blob.
  static func forEachKey(in blob: UnsafeRawBufferPointer, _ body: (Int64) -> Void) {
    var offset = 0
    while offset + 8 <= blob.count {
      body(Int64(littleEndian: blob.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
      offset += 8
    }
  }

  static func pack(_ keys: some Sequence<Int64>, into bytes: inout [UInt8]) {
    for key in keys {
      withUnsafeBytes(of: key.littleEndian) { bytes.append(contentsOf: $0) }
    }
  }

  fileprivate static func bindBucket(_ statement: Statement, _ bucket: Bucket) throws(StoreError) {
    try statement.bind(1, bucket.appNo)
    try statement.bind(2, Int64(bucket.isTest ? 1 : 0))
    try statement.bind(3, bucket.updateId)
    try statement.bind(4, bucket.day)
    try statement.bind(5, bucket.action)
  }
}
