import Foundation
import UptakeCore

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
    chunk.eventLines.reserveCapacity(eventsPerChunk)
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
        chunk.eventLines.append(lines.number)
      case .rejected(let message):
        rejectedSoFar += 1
        chunk.rejected += 1
        if rejectedSoFar <= shownRejections {
          chunk.rejections.append(LineRejection(line: lines.number, message: message))
        }
      }
      linesInChunk += 1
      if chunk.events.count == eventsPerChunk || linesInChunk == Self.maxLinesPerChunk {
        chunk.linesRead = lines.number
        chunk.eventsRead = eventsRead
        guard queue.put(chunk) else { return }
        chunk = ImportChunk(receivedAtMs: WallClock.nowMs())
        chunk.events.reserveCapacity(eventsPerChunk)
        chunk.eventLines.reserveCapacity(eventsPerChunk)
        linesInChunk = 0
      }
    }
    chunk.linesRead = lines.number
    chunk.eventsRead = eventsRead
    _ = queue.put(chunk)
  }
}
