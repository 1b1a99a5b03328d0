/// Members of daily_installs' buckets packed into blobs, 512 to a row
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

  /// One daily_installs bucket.
  struct Bucket: Hashable {
    var appNo: Int64
    var isTest: Bool
    var updateId: String
    var day: Int64
    var action: Int
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
      try bind(last, bucket)
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
        try bind(write, bucket)
        try write.bind(6, chunk)
        try write.bind(7, count)
        try write.bind(8, packed)
        try write.run()
        chunk += 1
        count = 0
        packed.removeAll(keepingCapacity: true)
      }
    }

    private func bind(_ statement: Statement, _ bucket: Bucket) throws(StoreError) {
      try statement.bind(1, bucket.appNo)
      try statement.bind(2, Int64(bucket.isTest ? 1 : 0))
      try statement.bind(3, bucket.updateId)
      try statement.bind(4, bucket.day)
      try statement.bind(5, bucket.action)
    }
  }
}

/// An entry of a packed chunk: written by the fold, read back by a report.
protocol PackedEntry {
  func pack(into bytes: inout [UInt8])
}

/// An install key, 8 bytes little-endian: daily_install_chunks' entries.
extension Int64: PackedEntry {
  func pack(into bytes: inout [UInt8]) {
    withUnsafeBytes(of: littleEndian) { bytes.append(contentsOf: $0) }
  }

  /// Calls `body` with every key of a daily_install_chunks blob.
  static func forEachPacked(in blob: UnsafeRawBufferPointer, _ body: (Int64) -> Void) {
    var offset = 0
    while offset + 8 <= blob.count {
      body(Int64(littleEndian: blob.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
      offset += 8
    }
  }
}

/// An install's first impression in a bucket, as funnel_impression_chunks
/// packs it: the key and time (8 bytes each, little-endian), then the
/// version's length (one byte; the contract allows 32) and its UTF-8 bytes.
/// A member whose first impression moves earlier (its events arrived out of
/// order) gets a second entry with the earlier time; readers keep each
/// install's earliest.
struct FirstImpression: PackedEntry {
  var installKey: Int64
  var timestampMs: Int64
  var version: String

  func pack(into bytes: inout [UInt8]) {
    installKey.pack(into: &bytes)
    timestampMs.pack(into: &bytes)
    let text = version.utf8.prefix(Int(UInt8.max))
    bytes.append(UInt8(text.count))
    bytes.append(contentsOf: text)
  }

  /// Calls `body` with every entry of a funnel_impression_chunks blob: the
  /// install key, the time, and the version's bytes (valid only inside).
  static func forEachPacked(
    in blob: UnsafeRawBufferPointer,
    _ body: (_ installKey: Int64, _ timestampMs: Int64, _ version: UnsafeBufferPointer<UInt8>)
      -> Void
  ) {
    var offset = 0
    while offset + 17 <= blob.count {
      let key = Int64(littleEndian: blob.loadUnaligned(fromByteOffset: offset, as: Int64.self))
      let ts = Int64(littleEndian: blob.loadUnaligned(fromByteOffset: offset + 8, as: Int64.self))
      let length = Int(blob[offset + 16])
      let start = offset + 17
      guard start + length <= blob.count else { return }
      let version = UnsafeBufferPointer(
        start: blob.baseAddress!.advanced(by: start).assumingMemoryBound(to: UInt8.self),
        count: length)
      body(key, ts, version)
      offset = start + length
    }
  }
}

/// A version change after a download, as funnel_downloads' `later_changes`
/// packs it (schema/0009): the time (8 bytes, little-endian), then the
/// version left and the version reached, each as a length byte and UTF-8.
struct VersionChange: PackedEntry, Equatable {
  var timestampMs: Int64
  var from: String
  var to: String

  func pack(into bytes: inout [UInt8]) {
    timestampMs.pack(into: &bytes)
    for version in [from, to] {
      let text = version.utf8.prefix(Int(UInt8.max))
      bytes.append(UInt8(text.count))
      bytes.append(contentsOf: text)
    }
  }

  /// Calls `body` with every change of a `later_changes` blob: the time and
  /// the two versions' bytes (valid only inside).
  static func forEachPacked(
    in blob: UnsafeRawBufferPointer,
    _ body: (
      _ timestampMs: Int64, _ from: UnsafeBufferPointer<UInt8>, _ to: UnsafeBufferPointer<UInt8>
    ) -> Void
  ) {
    var offset = 0
    func text() -> UnsafeBufferPointer<UInt8>? {
      guard offset < blob.count else { return nil }
      let length = Int(blob[offset])
      guard offset + 1 + length <= blob.count else { return nil }
      defer { offset += 1 + length }
      return UnsafeBufferPointer(
        start: blob.baseAddress!.advanced(by: offset + 1).assumingMemoryBound(to: UInt8.self),
        count: length)
    }
    while offset + 8 <= blob.count {
      let ts = Int64(littleEndian: blob.loadUnaligned(fromByteOffset: offset, as: Int64.self))
      offset += 8
      guard let from = text(), let to = text() else { return }
      body(ts, from, to)
    }
  }
}
