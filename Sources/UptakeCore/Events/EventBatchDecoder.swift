/// Decodes an ingest request body, `{"events": [...]}`, in one pass over its
/// bytes. The top-level object is walked here rather than parsed whole so
/// that each event's byte span is known (the contract limits one event's
/// size) and each event is validated as soon as it is parsed, without a tree
/// of the whole body.
///
/// Other top-level keys are ignored. A body with two `events` keys is refused
/// as ambiguous, since another JSON reader could take either one.
public struct EventBatchDecoder: Sendable {
  let limits: IngestLimits
  let validator = EventValidator()

  /// A decoder that enforces `limits`.
  public init(limits: IngestLimits = IngestLimits()) {
    self.limits = limits
  }

  /// Decodes `body`; events without a timestamp get `receivedAtMs`.
  public func decode(_ body: [UInt8], receivedAtMs: Int64) throws(BatchDecodingError)
    -> DecodedBatch
  {
    // withUnsafeBytes only rethrows untyped errors, so carry the result out.
    try body.withUnsafeBytes { raw in
      Result { () throws(BatchDecodingError) in try decode(raw, receivedAtMs: receivedAtMs) }
    }.get()
  }

  /// Decodes `body`; events without a timestamp get `receivedAtMs`.
  public func decode(_ body: UnsafeRawBufferPointer, receivedAtMs: Int64) throws(BatchDecodingError)
    -> DecodedBatch
  {
    var reader = JSONReader(bytes: body, maxDepth: limits.maxDepth)
    var batch = DecodedBatch(events: [], eventIndexes: [], rejected: [], total: 0)
    var sawEvents = false

    reader.skipWhitespace()
    guard reader.current == UInt8(ascii: "{") else {
      // Tell "not JSON" from "JSON, but not an object" for the client.
      _ = try json { () throws(JSONParseError) in try reader.parseDocument() }
      throw .badRequest("the body must be a JSON object with an \"events\" array")
    }
    _ = try json { () throws(JSONParseError) in try reader.enter(depth: 0) }
    if reader.current == UInt8(ascii: "}") {
      reader.position += 1
    } else {
      while true {
        let key = try json { () throws(JSONParseError) in
          reader.skipWhitespace()
          return try reader.parseKey()
        }
        if key == "events" {
          if sawEvents { throw .badRequest("the body has more than one \"events\" key") }
          sawEvents = true
          try decodeEvents(&reader, into: &batch, receivedAtMs: receivedAtMs)
        } else {
          // Checked, never built: an ignored key's value is the client's.
          try json { () throws(JSONParseError) in try reader.skipValue(depth: 1) }
        }
        if try json({ () throws(JSONParseError) in try reader.endOfMember() }) { break }
      }
    }
    try json { () throws(JSONParseError) in
      reader.skipWhitespace()
      if !reader.isAtEnd { throw reader.unexpected("after the JSON value") }
    }

    guard sawEvents else { throw .badRequest("the body has no \"events\" array") }
    guard batch.total > 0 else {
      throw .badRequest("\"events\" must hold 1 to \(limits.maxEventsPerBatch) events, not 0")
    }
    return batch
  }

  /// Walks the `events` array at the reader's position, validating each
  /// element as soon as it is parsed.
  private func decodeEvents(
    _ reader: inout JSONReader, into batch: inout DecodedBatch, receivedAtMs: Int64
  ) throws(BatchDecodingError) {
    guard reader.current == UInt8(ascii: "[") else {
      try json { () throws(JSONParseError) in try reader.skipValue(depth: 1) }
      throw .badRequest("\"events\" must be an array")
    }
    _ = try json { () throws(JSONParseError) in try reader.enter(depth: 1) }
    if reader.current == UInt8(ascii: "]") {
      reader.position += 1
      return
    }
    batch.events.reserveCapacity(64)
    batch.eventIndexes.reserveCapacity(64)
    while true {
      let index = batch.total
      if index == limits.maxEventsPerBatch {
        throw .badRequest(
          "\"events\" must hold 1 to \(limits.maxEventsPerBatch) events, not more")
      }
      batch.total += 1
      let (result, start, end) = try json { () throws(JSONParseError) in
        reader.skipWhitespace()
        let start = reader.position
        let result = try validator.validateValue(&reader, depth: 2, receivedAtMs: receivedAtMs)
        return (result, start, reader.position)
      }
      if end - start > limits.maxEventBytes { throw .eventTooLarge(index: index) }
      switch result {
      case .success(let event):
        batch.events.append(event)
        batch.eventIndexes.append(index)
      case .failure(let error):
        batch.rejected.append(Rejection(index: index, error: error.message))
      }
      let done = try json { () throws(JSONParseError) in
        reader.skipWhitespace()
        let byte = reader.current
        guard byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") else {
          throw reader.unexpected("where ',' or ']' should be")
        }
        reader.position += 1
        return byte == UInt8(ascii: "]")
      }
      if done { return }
    }
  }

  /// Runs a step of the walk, turning a JSON error into a 400.
  private func json<T>(_ step: () throws(JSONParseError) -> T) throws(BatchDecodingError) -> T {
    do {
      return try step()
    } catch {
      throw .badRequest("the body is not valid JSON: \(error.message) at byte \(error.offset)")
    }
  }
}
