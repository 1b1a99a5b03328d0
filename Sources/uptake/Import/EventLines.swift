import Foundation
import UptakeCore

/// Turns NDJSON lines into events, by the rules of ingest, and numbers them
/// from 1.
struct EventLines {
  enum Outcome {
    case blank
    case event(Event)
    case rejected(String)
  }

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
    let result: Result<Event, EventValidationError>
    do {
      result = try validator.validateDocument(bytes, receivedAtMs: receivedAtMs)
    } catch {
      return .rejected("not JSON: \(error.message) at byte \(error.offset)")
    }
    switch result {
    case .success(let event): return .event(event)
    case .failure(let error): return .rejected(error.message)
    }
  }

  /// JSON's whitespace: space, tab, CR, LF.
  private static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
  }
}
