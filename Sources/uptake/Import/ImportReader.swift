import Foundation
import UptakeCore

/// Events read from an import's input, ready to store in one transaction.
struct ImportChunk: Sendable {
  /// Valid events, all checked against `receivedAtMs`.
  var events: [Event] = []
  /// The time of the import used as "received" for these events.
  var receivedAtMs: Int64
  /// Lines and valid events read so far, this chunk included.
  var linesRead = 0
  var eventsRead = 0
  /// Lines of this chunk that were rejected, and the messages of those
  /// among the first `shownRejections` of the whole input.
  var rejected = 0
  var rejections: [String] = []
  /// Set on the last chunk when reading failed: the `errno`.
  var readError: Int32?
}

/// Reads and checks an import's lines on a thread of its own, handing chunks
/// to the thread that stores them: parsing JSON and writing SQLite then each
/// take one core, and a chunk is parsed while the one before is committed.
struct ImportReader: Sendable {
  let descriptor: Int32
  let eventsPerChunk: Int
  let shownRejections: Int
  /// A chunk is handed over after this many lines even when short of
  /// events, so a file of mostly rejected lines still shows progress.
  static let maxLinesPerChunk = 100_000

  /// Reads to the end of the input (or a read error, or `queue.cancel()`),
  /// then finishes the queue.
  func run(into queue: ChunkQueue) {
    defer { queue.finish() }
    let reader = LineReader(descriptor: descriptor, maxLineBytes: IngestLimits().maxEventBytes)
    var lines = EventLines()
    var rejectedSoFar = 0
    var eventsRead = 0
    var chunk = ImportChunk(receivedAtMs: WallClock.nowMs())
    chunk.events.reserveCapacity(eventsPerChunk)
    var linesInChunk = 0
    while true {
      let line: LineReader.Line?
      do {
        line = try reader.next()
      } catch {
        chunk.readError = error.code
        line = nil
      }
      guard let line else { break }
      switch lines.parse(line, receivedAtMs: chunk.receivedAtMs) {
      case .blank:
        break
      case .event(let event):
        eventsRead += 1
        chunk.events.append(event)
      case .rejected(let message):
        rejectedSoFar += 1
        chunk.rejected += 1
        if rejectedSoFar <= shownRejections {
          chunk.rejections.append("line \(lines.number): \(message)")
        }
      }
      linesInChunk += 1
      if chunk.events.count == eventsPerChunk || linesInChunk == Self.maxLinesPerChunk {
        chunk.linesRead = lines.number
        chunk.eventsRead = eventsRead
        guard queue.put(chunk) else { return }
        chunk = ImportChunk(receivedAtMs: WallClock.nowMs())
        chunk.events.reserveCapacity(eventsPerChunk)
        linesInChunk = 0
      }
    }
    chunk.linesRead = lines.number
    chunk.eventsRead = eventsRead
    _ = queue.put(chunk)
  }
}

/// Turns NDJSON lines into events, by the rules of ingest, and numbers them
/// from 1.
struct EventLines {
  enum Outcome {
    case blank
    case event(Event)
    case rejected(String)
  }

  private let parser = JSONParser()
  private let validator = EventValidator()
  /// The number of the line parsed last.
  private(set) var number = 0

  mutating func parse(_ line: LineReader.Line, receivedAtMs: Int64) -> Outcome {
    number += 1
    guard case .bytes(var bytes) = line else {
      return .rejected("event: over \(IngestLimits().maxEventBytes / 1024) KiB")
    }
    // A byte order mark that some editors put at the start of a UTF-8 file.
    if number == 1, bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
      bytes = UnsafeRawBufferPointer(rebasing: bytes[3...])
    }
    guard bytes.contains(where: { !Self.isWhitespace($0) }) else { return .blank }
    let value: JSONValue
    do {
      value = try parser.parse(bytes)
    } catch {
      return .rejected("not JSON: \(error.message) at byte \(error.offset)")
    }
    switch validator.validate(value, receivedAtMs: receivedAtMs) {
    case .success(let event): return .event(event)
    case .failure(let error): return .rejected(error.message)
    }
  }

  /// JSON's whitespace: space, tab, CR, LF.
  private static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
  }
}

/// The hand-over between the reading and the storing thread. It holds a few
/// chunks at most, so a reader faster than the database waits instead of
/// filling memory.
final class ChunkQueue: @unchecked Sendable {
  private let capacity: Int
  private let condition = NSCondition()
  // Guarded by `condition`:
  private var chunks: [ImportChunk] = []
  private var finished = false
  private var cancelled = false

  init(capacity: Int) {
    self.capacity = capacity
  }

  /// Adds a chunk, waiting for room; false when the consumer gave up.
  func put(_ chunk: ImportChunk) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while chunks.count >= capacity && !cancelled { condition.wait() }
    guard !cancelled else { return false }
    chunks.append(chunk)
    condition.broadcast()
    return true
  }

  /// The next chunk, waiting for one; nil once the reader has finished and
  /// every chunk was taken.
  func take() -> ImportChunk? {
    condition.lock()
    defer { condition.unlock() }
    while chunks.isEmpty && !finished { condition.wait() }
    guard !chunks.isEmpty else { return nil }
    condition.broadcast()
    return chunks.removeFirst()
  }

  /// Called by the reader when it is done.
  func finish() {
    condition.lock()
    finished = true
    condition.broadcast()
    condition.unlock()
  }

  /// Called by the consumer when it stops early: the reader stops too.
  func cancel() {
    condition.lock()
    cancelled = true
    chunks.removeAll()
    condition.broadcast()
    condition.unlock()
  }
}
