import Glibc

/// An install's hours of each action on one day with one dimension set: a
/// row of install_presence as presence_runs packs it (schema/0010).
struct PresenceEntry: PackedEntry, Equatable {
  var installKey: Int64
  var dimsNo: Int64
  /// Per action (impression, download, later, ignore), bit h for hour h of
  /// the day.
  var hours: SIMD4<Int64>

  /// Runs are sorted by install, then dimension set.
  func precedes(_ other: PresenceEntry) -> Bool {
    installKey != other.installKey ? installKey < other.installKey : dimsNo < other.dimsNo
  }

  func pack(into bytes: inout [UInt8]) {
    installKey.pack(into: &bytes)
    var dims = UInt64(bitPattern: dimsNo)
    while dims >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: dims) | 0x80)
      dims >>= 7
    }
    bytes.append(UInt8(dims))
    var present: UInt8 = 0
    for action in 0..<4 where hours[action] != 0 { present |= 1 << action }
    bytes.append(present)
    for action in 0..<4 where hours[action] != 0 {
      let bits = hours[action]
      bytes.append(UInt8(truncatingIfNeeded: bits))
      bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
      bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
    }
  }

  /// The entry at `offset` of a presence_runs blob, moving `offset` past
  /// it; nil at the end, or where the blob is cut short.
  static func unpack(_ blob: UnsafeRawBufferPointer, _ offset: inout Int) -> PresenceEntry? {
    guard offset + 10 <= blob.count else { return nil }
    let key = Int64(littleEndian: blob.loadUnaligned(fromByteOffset: offset, as: Int64.self))
    var at = offset + 8
    var dims: UInt64 = 0
    var shift: UInt64 = 0
    while at < blob.count {
      let byte = blob[at]
      at += 1
      dims |= UInt64(byte & 0x7f) << shift
      if byte < 0x80 { break }
      shift += 7
      if shift > 63 { return nil }
    }
    guard at < blob.count else { return nil }
    let present = blob[at]
    at += 1
    var hours = SIMD4<Int64>()
    for action in 0..<4 where present & (1 << action) != 0 {
      guard at + 3 <= blob.count else { return nil }
      hours[action] =
        Int64(blob[at]) | Int64(blob[at + 1]) << 8 | Int64(blob[at + 2]) << 16
      at += 3
    }
    offset = at
    return PresenceEntry(installKey: key, dimsNo: Int64(bitPattern: dims), hours: hours)
  }

  /// Sorts the entries of a packed blob in place if they are out of order;
  /// their bytes only move, so the blob keeps its size.
  static func sortPacked(_ blob: UnsafeMutableRawBufferPointer) {
    let bytes = UnsafeRawBufferPointer(blob)
    var offset = 0
    var last: PresenceEntry?
    var inOrder = true
    while inOrder, let entry = unpack(bytes, &offset) {
      if let last, !last.precedes(entry) { inOrder = false }
      last = entry
    }
    guard !inOrder else { return }
    var entries: [PresenceEntry] = []
    offset = 0
    while let entry = unpack(bytes, &offset) { entries.append(entry) }
    entries.sort { $0.precedes($1) }
    packed(entries).withUnsafeBytes { blob.copyMemory(from: $0) }
  }

  /// `entries` (sorted) as one blob.
  static func packed(_ entries: [PresenceEntry]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(entries.count * 14)
    for entry in entries { entry.pack(into: &bytes) }
    return bytes
  }
}

/// The runs of one day, one after another in one buffer, read back as
/// one sequence in (install, dims) order: an entry that several runs hold
/// comes once from each, one after another. A class owning its bytes, so a
/// report's loop reads them through plain pointers: handed to a closure
/// instead, the loop's state was boxed and every row paid for retains and
/// exclusivity checks (groupBy=date,appVersion took 195 ms, not 95).
final class PresenceRunSet {
  private var storage: UnsafeMutableRawPointer?
  private var count = 0
  private var capacity = 0
  /// Where each run ends in the buffer.
  private var ends: [Int] = []

  deinit { free(storage) }

  func append(_ run: UnsafeRawBufferPointer) {
    if count + run.count > capacity {
      let grown = max(64 << 10, capacity * 2, count + run.count)
      guard let resized = realloc(storage, grown) else {
        preconditionFailure("out of memory for \(grown) bytes of presence runs")
      }
      storage = resized
      capacity = grown
    }
    if let base = run.baseAddress, run.count > 0 {
      (storage! + count).copyMemory(from: base, byteCount: run.count)
    }
    count += run.count
    ends.append(count)
  }

  func append(_ run: [UInt8]) {
    run.withUnsafeBytes { append($0) }
  }

  func removeAll() {
    count = 0
    ends.removeAll(keepingCapacity: true)
  }

  /// The entries in order; valid while the set is alive and unchanged.
  func entries() -> Entries {
    var runs: [UnsafeRawBufferPointer] = []
    var start = 0
    for end in ends {
      runs.append(UnsafeRawBufferPointer(start: storage.map { $0 + start }, count: end - start))
      start = end
    }
    return Entries(runs: runs)
  }

  /// All entries packed as one run, those of one install and dimension set
  /// joined; and how many there are. Packed as they come, so a merge holds
  /// its runs and its result and nothing else.
  func packedCombined() -> (bytes: [UInt8], entries: Int) {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count)
    var entries = 0
    var all = self.entries()
    var pending = all.next()
    while let entry = pending {
      var joined = entry
      pending = all.next()
      while let next = pending, next.installKey == joined.installKey, next.dimsNo == joined.dimsNo {
        joined.hours |= next.hours
        pending = all.next()
      }
      joined.pack(into: &bytes)
      entries += 1
    }
    return (bytes, entries)
  }

  /// The entries of every run in (install, dims) order, through a binary
  /// heap of the runs' heads: a day's runs are a handful, or a few dozen
  /// for a day of a million installs.
  struct Entries {
    private let runs: [UnsafeRawBufferPointer]
    private var offsets: [Int]
    private var heads: [PresenceEntry]
    /// Runs not read to the end, the one with the least head first.
    private var heap: [Int] = []
    /// The only run, read without the heap.
    private let single: UnsafeRawBufferPointer?
    private var offset = 0

    fileprivate init(runs: [UnsafeRawBufferPointer]) {
      self.runs = runs
      offsets = [Int](repeating: 0, count: runs.count)
      heads = [PresenceEntry](
        repeating: PresenceEntry(installKey: 0, dimsNo: 0, hours: SIMD4()), count: runs.count)
      single = runs.count == 1 ? runs[0] : nil
      guard single == nil else { return }
      for index in runs.indices {
        if let head = PresenceEntry.unpack(runs[index], &offsets[index]) {
          heads[index] = head
          heap.append(index)
        }
      }
      for position in stride(from: heap.count / 2 - 1, through: 0, by: -1) {
        siftDown(position)
      }
    }

    mutating func next() -> PresenceEntry? {
      if let single { return PresenceEntry.unpack(single, &offset) }
      guard let top = heap.first else { return nil }
      let entry = heads[top]
      if let head = PresenceEntry.unpack(runs[top], &offsets[top]) {
        heads[top] = head
      } else {
        heap[0] = heap[heap.count - 1]
        heap.removeLast()
      }
      if !heap.isEmpty { siftDown(0) }
      return entry
    }

    private mutating func siftDown(_ start: Int) {
      var position = start
      while true {
        let left = 2 * position + 1
        guard left < heap.count else { return }
        var least = left
        let right = left + 1
        if right < heap.count && heads[heap[right]].precedes(heads[heap[left]]) { least = right }
        guard heads[heap[least]].precedes(heads[heap[position]]) else { return }
        heap.swapAt(position, least)
        position = least
      }
    }
  }
}

/// The fold's writes to presence_runs: a run appended per (app, test flag,
/// day) it touches, and the day's small runs merged once there are many.
enum PresenceRuns {
  /// A run at least this long is never merged again: a merge holds its
  /// runs and its result in memory, so this bounds it near 8 × 32k entries
  /// of ~14 bytes, 3.6 MiB each way. At 64k, with each merge's entries
  /// decoded into an array, sustained batches took uptaked from 90 to
  /// 145 MiB resident. A fold's run under a flood (~50k entries) is full
  /// from the start, so floods merge nothing.
  static let fullRunEntries = 1 << 15
  /// Runs under `fullRunEntries` a day may have before the fold merges
  /// them: a report merges a day's runs entry by entry, so few is fast.
  static let maxSmallRuns = 8

  /// A day's presence rows of one app and test flag.
  struct Day: Hashable {
    let appNo: Int64
    let isTest: Bool
    let day: Int64
  }

  /// Appends `entries` (sorted, one per install and dimension set) as a
  /// new run of `day`, merging them with the day's small runs when it has
  /// `maxSmallRuns` of them.
  static func append(_ entries: [PresenceEntry], to day: Day, _ database: Database)
    throws(StoreError)
  {
    let list = try database.statement(
      "SELECT run, entries FROM presence_runs WHERE app_no = ? AND is_test = ? AND day = ?")
    try bind(list, day)
    var highest: Int64 = -1
    var small: [Int64] = []
    while try list.step() {
      highest = max(highest, list.int64(0))
      if list.int(1) < fullRunEntries { small.append(list.int64(0)) }
    }
    list.reset()

    var packed = PresenceEntry.packed(entries)
    var count = entries.count
    if small.count >= maxSmallRuns {
      let read = try database.statement(
        "SELECT packed FROM presence_runs WHERE app_no = ? AND is_test = ? AND day = ? AND run = ?"
      )
      let remove = try database.statement(
        "DELETE FROM presence_runs WHERE app_no = ? AND is_test = ? AND day = ? AND run = ?")
      let runs = PresenceRunSet()
      runs.append(packed)
      for number in small {
        try bind(read, day)
        try read.bind(4, number)
        if try read.step() { read.withBlob(0) { runs.append($0) } }
        read.reset()
        try bind(remove, day)
        try remove.bind(4, number)
        try remove.run()
      }
      (packed, count) = runs.packedCombined()
    }
    let add = try database.statement(
      """
      INSERT INTO presence_runs (app_no, is_test, day, run, entries, packed)
      VALUES (?, ?, ?, ?, ?, ?)
      """)
    try bind(add, day)
    try add.bind(4, highest + 1)
    try add.bind(5, count)
    try add.bind(6, packed)
    try add.run()
  }

  /// Adds the runs of `day` to `runs`.
  static func read(_ day: Day, into runs: PresenceRunSet, _ database: Database)
    throws(StoreError)
  {
    let read = try database.statement(
      "SELECT packed FROM presence_runs WHERE app_no = ? AND is_test = ? AND day = ? ORDER BY run"
    )
    try bind(read, day)
    while try read.step() { read.withBlob(0) { runs.append($0) } }
    read.reset()
  }

  private static func bind(_ statement: Statement, _ day: Day) throws(StoreError) {
    try statement.bind(1, day.appNo)
    try statement.bind(2, Int64(day.isTest ? 1 : 0))
    try statement.bind(3, day.day)
  }
}
