import Foundation

/// The on-disk queue of events not yet delivered, oldest first.
///
/// Events are lines of JSON in append-only segment files (`queue/N.ndjson`);
/// each append is written and synced before `append` returns. A process
/// killed mid-write leaves at most a torn last line, which is skipped when the
/// queue is read again; a new process appends to the last segment only when
/// it ends in a whole line, so a torn line cannot swallow the next event.
/// Removing events unlinks a
/// segment whose events are all gone, or rewrites it atomically with the ones
/// left. A removal lost to a crash only sends those events again, and the
/// server stores each id once.
///
/// The whole queue is also held in memory (it is bounded), so batches are
/// read without touching the disk. One lock guards both; no network call
/// ever runs under it.
final class EventQueue: @unchecked Sendable {
  private let lock = NSLock()
  private let directory: URL
  private let capacity: Int
  private let segmentCapacity: Int
  private var events: [QueuedEvent] = []
  private var tail: OpenSegment?
  private var nextSegment = 1
  private var counters = Counters()

  /// What the queue lost, and why.
  struct Counters: Sendable, Equatable {
    /// Oldest events dropped because the queue was full.
    var droppedOldest = 0
    /// Torn or unreadable lines skipped while reading the queue.
    var unreadableLines = 0
    /// Events that could not be written to disk (disk full, say).
    var writeFailures = 0
  }

  /// The segment this process appends to.
  private struct OpenSegment {
    let number: Int
    let handle: FileHandle
    var count: Int
  }

  /// Opens the queue in `directory`, creating it if needed, and reads every
  /// event a previous process left.
  init(directory: URL, capacity: Int, segmentCapacity: Int) throws {
    self.directory = directory
    self.capacity = capacity
    self.segmentCapacity = segmentCapacity
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
    where name.hasSuffix(".tmp") {
      try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
    }
    var last: (number: Int, count: Int, whole: Bool)?
    for number in try segmentNumbers() {
      let data = try Data(contentsOf: segmentURL(number))
      let (read, unreadable) = EventQueue.events(in: data, segment: number)
      events += read
      counters.unreadableLines += unreadable
      nextSegment = number + 1
      last = (number, read.count, data.last.map { $0 == UInt8(ascii: "\n") } ?? true)
    }
    // Go on filling the last segment, so that launches that each record an
    // event or two do not leave a file apiece.
    if let last, last.whole, last.count < segmentCapacity,
      let handle = try? FileHandle(forWritingTo: segmentURL(last.number))
    {
      tail = OpenSegment(number: last.number, handle: handle, count: last.count)
    }
    lock.sync { dropOverflow() }
  }

  deinit { try? tail?.handle.close() }

  /// Events waiting to be delivered.
  var count: Int { lock.sync { events.count } }

  var lossCounters: Counters { lock.sync { counters } }

  /// Writes `json` (one event object, no newline in it) to disk and queues
  /// it; false when the disk refused it.
  @discardableResult
  func append(id: String, json: Data) -> Bool {
    lock.sync {
      do {
        var segment = try writableSegment()
        try segment.handle.seekToEnd()
        try segment.handle.write(contentsOf: json + [UInt8(ascii: "\n")])
        // fsync: the event outlives a crash of the app or of the OS. Against
        // power loss Apple's disks want F_FULLFSYNC, whose cost a record on
        // the main thread should not pay; the server dedups what a lost
        // removal sends again, but a lost append is lost.
        try segment.handle.synchronize()
        segment.count += 1
        tail = segment
        events.append(QueuedEvent(id: id, json: json, segment: segment.number))
      } catch {
        // The segment may end in a torn line now: never append to it again.
        closeTail()
        counters.writeFailures += 1
        return false
      }
      dropOverflow()
      return true
    }
  }

  /// The oldest events, at most `limit` of them and `maxBytes` of JSON
  /// (always at least one when the queue is not empty).
  func oldest(limit: Int, maxBytes: Int) -> [QueuedEvent] {
    lock.sync {
      var batch: [QueuedEvent] = []
      var bytes = 0
      for event in events.prefix(limit) {
        bytes += event.json.count + 1
        if bytes > maxBytes && !batch.isEmpty { break }
        batch.append(event)
      }
      return batch
    }
  }

  /// Removes the events with these ids, from memory and from disk.
  func remove(ids: Set<String>) {
    lock.sync { removeLocked(ids: ids) }
  }

  private func removeLocked(ids: Set<String>) {
    var touched = Set<Int>()
    events.removeAll { event in
      guard ids.contains(event.id) else { return false }
      touched.insert(event.segment)
      return true
    }
    for number in touched.sorted() {
      if tail?.number == number { closeTail() }
      let left = events.filter { $0.segment == number }
      let url = segmentURL(number)
      if left.isEmpty {
        try? FileManager.default.removeItem(at: url)
      } else {
        var data = Data()
        for event in left { data += event.json + [UInt8(ascii: "\n")] }
        // On failure the old segment stays: its events go out again, and
        // the server keeps each id once.
        try? DurableFile.write(data, to: url)
      }
    }
  }

  /// Drops the oldest events beyond the capacity.
  private func dropOverflow() {
    let excess = events.count - capacity
    guard excess > 0 else { return }
    removeLocked(ids: Set(events.prefix(excess).map(\.id)))
    counters.droppedOldest += excess
  }

  /// The segment to append to: this process's own, or a new one when there
  /// is none yet or it is full.
  private func writableSegment() throws -> OpenSegment {
    if let tail, tail.count < segmentCapacity { return tail }
    closeTail()
    let number = nextSegment
    let url = segmentURL(number)
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
    }
    nextSegment += 1
    DurableFile.syncDirectory(directory)
    return OpenSegment(number: number, handle: try FileHandle(forWritingTo: url), count: 0)
  }

  private func closeTail() {
    try? tail?.handle.close()
    tail = nil
  }

  private func segmentURL(_ number: Int) -> URL {
    directory.appendingPathComponent("\(number).ndjson")
  }

  private func segmentNumbers() throws -> [Int] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path)
      .compactMap { name in
        name.hasSuffix(".ndjson") ? Int(name.dropLast(".ndjson".count)) : nil
      }
      .sorted()
  }

  /// The events of a segment file's content, and how many lines were torn
  /// (no newline at the end: the write was cut short) or unreadable.
  static func events(in data: Data, segment: Int) -> ([QueuedEvent], unreadable: Int) {
    var events: [QueuedEvent] = []
    var unreadable = 0
    let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    for (index, line) in lines.enumerated() where !line.isEmpty {
      let complete = index < lines.count - 1
      // A copy starting at index 0: older decoders mishandle slices.
      let json = Data(line)
      guard complete, let id = try? JSONDecoder().decode(EventID.self, from: json).id else {
        unreadable += 1
        continue
      }
      events.append(QueuedEvent(id: id, json: json, segment: segment))
    }
    return (events, unreadable)
  }

  private struct EventID: Decodable {
    let id: String
  }
}
