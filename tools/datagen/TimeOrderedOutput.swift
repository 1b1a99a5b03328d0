import Foundation
import UptakeCore
import UptakeDataGen

/// Writes the simulation's events as NDJSON sorted by time, as a log or an
/// export of real traffic would be (the simulation itself goes install by
/// install). Events are spilled into one file per day in a temporary
/// directory, then each day is sorted in memory and written out, so memory
/// stays at one day's events however many days are simulated.
struct TimeOrderedOutput {
  private let directory: URL
  private var buckets: [Int64: FileHandle] = [:]
  private var pending: [Int64: [UInt8]] = [:]

  init() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("uptake-datagen-\(getpid())-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  /// Spills one event, keyed by its time, into its day's file.
  mutating func add(_ event: Event) throws {
    let day = event.timestampMs / 86_400_000
    pending[day, default: []] += Array("\(event.timestampMs)\t\(EventJSON.object(event))\n".utf8)
    if pending[day]!.count > 1 << 16 { try spill(day) }
  }

  /// Writes every day in order to `output` and removes the spill files.
  mutating func finish(into output: FileHandle) throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    for day in pending.keys { try spill(day) }
    for handle in buckets.values { try handle.close() }
    for day in buckets.keys.sorted() {
      let data = try Data(contentsOf: bucketURL(day))
      let lines = data.split(separator: UInt8(ascii: "\n"))
      // Sorted by time, ties kept in generation order.
      let ordered = lines.enumerated().map { index, line in
        let tab = line.firstIndex(of: UInt8(ascii: "\t"))!
        let ms = Int64(String(decoding: line[line.startIndex..<tab], as: UTF8.self))!
        return (ms: ms, index: index, json: line[line.index(after: tab)...])
      }.sorted { ($0.ms, $0.index) < ($1.ms, $1.index) }
      var buffer = Data()
      for line in ordered {
        buffer.append(contentsOf: line.json)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count > 1 << 20 {
          output.write(buffer)
          buffer.removeAll(keepingCapacity: true)
        }
      }
      output.write(buffer)
    }
  }

  private mutating func spill(_ day: Int64) throws {
    guard let bytes = pending[day], !bytes.isEmpty else { return }
    if buckets[day] == nil {
      // A file that cannot be created fails the open just below, with the
      // system's reason.
      _ = FileManager.default.createFile(atPath: bucketURL(day).path, contents: nil)
      buckets[day] = try FileHandle(forWritingTo: bucketURL(day))
    }
    try buckets[day]!.write(contentsOf: bytes)
    pending[day] = []
  }

  private func bucketURL(_ day: Int64) -> URL {
    directory.appendingPathComponent("day-\(day).ndjson")
  }
}
