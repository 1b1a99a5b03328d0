import Glibc

/// The runs of one day, one after another in one buffer, read back as
/// one sequence in (install, dims) order: an entry that several runs hold
/// comes once from each, one after another. A class owning its bytes, so a
/// report's loop reads them through plain pointers: handed to a closure
/// instead, the loop's state was boxed and every row paid for retains and
/// exclusivity checks (docs/performance.md).
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
    Entries(runs: runs(), merged: true)
  }

  /// The entries run after run, each run in order but not merged: for a
  /// reader that takes them in any order, which the merge's heap would
  /// cost a sixth of a report (docs/performance.md).
  func entriesRunByRun() -> Entries {
    Entries(runs: runs(), merged: false)
  }

  private func runs() -> [UnsafeRawBufferPointer] {
    var runs: [UnsafeRawBufferPointer] = []
    var start = 0
    for end in ends {
      runs.append(UnsafeRawBufferPointer(start: storage.map { $0 + start }, count: end - start))
      start = end
    }
    return runs
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
  /// for a day of a million installs. Or, not merged, one run after another.
  struct Entries {
    private let runs: [UnsafeRawBufferPointer]
    private var offsets: [Int]
    private var heads: [PresenceEntry]
    /// Runs not read to the end, the one with the least head first.
    private var heap: [Int] = []
    /// The only run, read without the heap.
    private let single: UnsafeRawBufferPointer?
    private var offset = 0
    /// Not merged: the run being read.
    private let merged: Bool
    private var current = 0

    fileprivate init(runs: [UnsafeRawBufferPointer], merged: Bool) {
      self.runs = runs
      self.merged = merged
      offsets = [Int](repeating: 0, count: runs.count)
      heads = [PresenceEntry](
        repeating: PresenceEntry(installKey: 0, dimsNo: 0, hours: SIMD4()), count: runs.count)
      single = runs.count == 1 ? runs[0] : nil
      guard single == nil, merged else { return }
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
      guard merged else {
        while current < runs.count {
          if let entry = PresenceEntry.unpack(runs[current], &offset) { return entry }
          current += 1
          offset = 0
        }
        return nil
      }
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
  /// A run at least 32k entries long is never merged again: a merge holds
  /// its runs and its result in memory, so this bounds it near 8 × 32k
  /// entries of ~14 bytes, 3.6 MiB each way; at 64k, with each merge's
  /// entries decoded into an array, sustained batches took uptaked past
  /// its memory bar (docs/performance.md). A fold's run under a flood is
  /// full from the start, so floods merge nothing. A report merges a day's
  /// runs entry by entry, so 8 small runs at most keep it fast.
  static let table = RunTable(name: "presence_runs", fullRunEntries: 1 << 15, maxSmallRuns: 8)
  /// The most entries a fold writes in one run; a step's day with more is
  /// written as several, so what a run costs in memory while it is written
  /// does not grow with the step. Four full runs: half as many left an
  /// imported database with more runs a day and slower reports over them
  /// (docs/performance.md); at this size an import's days are written as
  /// before.
  static let writtenRunEntries = 1 << 17

  /// A day's presence rows of one app and test flag.
  typealias Day = RunTable.Day

  /// Appends a run of `day`: `count` entries packed one after another
  /// (sorted, one per install and dimension set), merged with the day's
  /// small runs when it has enough of them.
  static func append(packed: [UInt8], count: Int, to day: Day, _ database: Database)
    throws(StoreError)
  {
    let (highest, small) = try table.runsToMerge(of: day, database)
    var packed = packed
    var count = count
    if !small.isEmpty {
      let runs = PresenceRunSet()
      runs.append(packed)
      try table.take(small, of: day, database) { runs.append($0) }
      (packed, count) = runs.packedCombined()
    }
    try table.add(packed, entries: count, number: highest + 1, to: day, database)
  }

  /// Adds the runs of `day` to `runs`.
  static func read(_ day: Day, into runs: PresenceRunSet, _ database: Database)
    throws(StoreError)
  {
    try table.read(day, database) { runs.append($0) }
  }
}
