import Foundation
import Testing
import UptakeTestSupport

@testable import UptakeClient

// The on-disk queue's files: what a later process finds after appends,
// removals and a torn write.
@Suite("The event queue on disk")
struct EventQueueTests {
  private func event(_ number: Int) -> (id: String, json: Data) {
    ("e\(number)", Data(#"{"id":"e\#(number)","updateId":"u","action":"impression"}"#.utf8))
  }

  private func ids(_ queue: EventQueue) -> [String] {
    queue.oldest(limit: 1000, maxBytes: .max).map(\.id)
  }

  private func files(_ directory: ScratchDirectory) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
  }

  @Test("appends fill segments in turn and read back in order")
  func segments() throws {
    let directory = try ScratchDirectory()
    defer { directory.remove() }
    do {
      let queue = try EventQueue(directory: directory.url, capacity: 100, segmentCapacity: 2)
      for number in 1...5 { #expect(queue.append(id: event(number).id, json: event(number).json)) }
    }
    #expect(try files(directory) == ["1.ndjson", "2.ndjson", "3.ndjson"])
    let reopened = try EventQueue(directory: directory.url, capacity: 100, segmentCapacity: 2)
    #expect(ids(reopened) == ["e1", "e2", "e3", "e4", "e5"])
  }

  @Test("removing a prefix unlinks emptied segments and rewrites the one cut in two")
  func removePrefix() throws {
    let directory = try ScratchDirectory()
    defer { directory.remove() }
    do {
      let queue = try EventQueue(directory: directory.url, capacity: 100, segmentCapacity: 2)
      for number in 1...5 { queue.append(id: event(number).id, json: event(number).json) }
      queue.remove(ids: ["e1", "e2", "e3"])
      #expect(ids(queue) == ["e4", "e5"])
      queue.append(id: event(6).id, json: event(6).json)
    }
    // e6 fills the open segment 3 after e5.
    #expect(try files(directory) == ["2.ndjson", "3.ndjson"])
    let segment = try String(contentsOf: directory.appending("2.ndjson"), encoding: .utf8)
    #expect(segment == String(decoding: event(4).json, as: UTF8.self) + "\n")
    let reopened = try EventQueue(directory: directory.url, capacity: 100, segmentCapacity: 2)
    #expect(ids(reopened) == ["e4", "e5", "e6"])
  }

  @Test("a new process goes on filling the last segment when it ends in a whole line")
  func lastSegmentContinued() throws {
    let directory = try ScratchDirectory()
    defer { directory.remove() }
    do {
      let queue = try EventQueue(directory: directory.url, capacity: 100, segmentCapacity: 3)
      for number in 1...4 { queue.append(id: event(number).id, json: event(number).json) }
    }
    do {
      let queue = try EventQueue(directory: directory.url, capacity: 100, segmentCapacity: 3)
      for number in 5...7 { queue.append(id: event(number).id, json: event(number).json) }
    }
    #expect(try files(directory) == ["1.ndjson", "2.ndjson", "3.ndjson"])
    let reopened = try EventQueue(directory: directory.url, capacity: 100, segmentCapacity: 3)
    #expect(ids(reopened) == (1...7).map { "e\($0)" })
    #expect(reopened.lossCounters.unreadableLines == 0)
  }

  @Test("a new process never appends after a torn line")
  func newSegmentPerProcess() throws {
    let directory = try ScratchDirectory()
    defer { directory.remove() }
    do {
      let queue = try EventQueue(directory: directory.url, capacity: 100, segmentCapacity: 10)
      queue.append(id: event(1).id, json: event(1).json)
    }
    let torn = #"{"id":"e2","upd"#
    let handle = try FileHandle(forWritingTo: directory.appending("1.ndjson"))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(torn.utf8))
    try handle.close()
    // A temporary file of a rewrite cut short by a crash.
    try Data("junk".utf8).write(to: directory.appending(".1.ndjson.x.tmp"))

    let queue = try EventQueue(directory: directory.url, capacity: 100, segmentCapacity: 10)
    #expect(queue.lossCounters.unreadableLines == 1)
    queue.append(id: event(3).id, json: event(3).json)
    #expect(try files(directory) == ["1.ndjson", "2.ndjson"])
    #expect(ids(queue) == ["e1", "e3"])
  }

  @Test("past its capacity the queue drops the oldest and counts them")
  func capacity() throws {
    let directory = try ScratchDirectory()
    defer { directory.remove() }
    let queue = try EventQueue(directory: directory.url, capacity: 3, segmentCapacity: 2)
    for number in 1...7 { queue.append(id: event(number).id, json: event(number).json) }
    #expect(ids(queue) == ["e5", "e6", "e7"])
    #expect(queue.lossCounters.droppedOldest == 4)
    let reopened = try EventQueue(directory: directory.url, capacity: 3, segmentCapacity: 2)
    #expect(ids(reopened) == ["e5", "e6", "e7"])
  }

  @Test("a batch stops before its byte limit, but always holds one event")
  func batchBytes() throws {
    let directory = try ScratchDirectory()
    defer { directory.remove() }
    let queue = try EventQueue(directory: directory.url, capacity: 100, segmentCapacity: 10)
    for number in 1...4 { queue.append(id: event(number).id, json: event(number).json) }
    let size = event(1).json.count + 1
    #expect(queue.oldest(limit: 10, maxBytes: size * 2).map(\.id) == ["e1", "e2"])
    #expect(queue.oldest(limit: 10, maxBytes: 1).map(\.id) == ["e1"])
    #expect(queue.oldest(limit: 3, maxBytes: .max).map(\.id) == ["e1", "e2", "e3"])
  }
}
