// libFuzzer entry point for the ingest path's decoding and validation: the
// bytes a client sends to POST /v1/events, inflated when they are gzip, then
// walked by EventBatchDecoder, which validates each event with
// EventValidator. Built by tools/fuzz/run together with the UptakeCore
// sources and GzipDecoder, as one module, so no package build is involved.
//
// Besides "no crash, no sanitizer report", each input is checked against the
// properties the handler relies on; a broken one traps, which libFuzzer
// records as a crash with the input that caused it.

/// The clock the validator measures event ages against: fixed, so that a
/// crash reproduces with the same input on any day.
private let receivedAtMs: Int64 = 1_767_225_600_000  // 2026-01-01T00:00:00Z

/// Kept well under the daemon's 8 MiB cap so each run stays fast; the cap's
/// logic is the same at any size.
private let maxInflatedBytes = 1 << 20

private let decoder = EventBatchDecoder()
private let parser = JSONParser(maxDepth: IngestLimits().maxDepth)

@_cdecl("LLVMFuzzerTestOneInput")
public func ingestBodyFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  if bytes.starts(with: [0x1f, 0x8b]) {
    do throws(GzipDecoder.Failure) {
      let inflated = try GzipDecoder.decode(bytes, maxOutputBytes: maxInflatedBytes)
      precondition(inflated.count <= maxInflatedBytes, "inflated past the cap")
      checkBody(inflated)
    } catch {
      // Refused as malformed or too large: the handler answers 400 or 413.
    }
  }
  checkBody(bytes)
  return 0
}

/// Decodes one body and checks what IngestHandler and BatchWriter assume of
/// the result.
private func checkBody(_ body: [UInt8]) {
  let batch: DecodedBatch
  do throws(BatchDecodingError) {
    batch = try decoder.decode(body, receivedAtMs: receivedAtMs)
  } catch {
    if case .eventTooLarge(let index) = error {
      precondition(index >= 0 && index < IngestLimits().maxEventsPerBatch, "bad index \(index)")
    }
    return
  }
  // Whatever the decoder accepts is a JSON document by the stricter reading
  // of the whole-document parser too.
  do throws(JSONParseError) {
    _ = try parser.parse(body)
  } catch {
    preconditionFailure("decoder accepted what the parser refuses: \(error.message)")
  }
  precondition((1...IngestLimits().maxEventsPerBatch).contains(batch.total), "bad total")
  precondition(batch.events.count == batch.eventIndexes.count, "events and indexes differ")
  precondition(batch.events.count + batch.rejected.count == batch.total, "events lost")
  let indexes = (batch.eventIndexes + batch.rejected.map(\.index)).sorted()
  precondition(indexes == Array(0..<batch.total), "indexes not one per event")
  for rejection in batch.rejected {
    precondition(rejection.error.contains(": "), "error not in field: message form")
  }
  for event in batch.events { checkEvent(event) }
  checkSameAsParsed(body, batch)
}

/// The decoder validates each event straight from the bytes; validating
/// the parsed document's events must give the same events and errors.
private func checkSameAsParsed(_ body: [UInt8], _ batch: DecodedBatch) {
  guard let document = try? parser.parse(body), case .array(let elements)? = document["events"]
  else { preconditionFailure("an accepted body without an events array") }
  precondition(elements.count == batch.total, "events counted differently")
  var events: [Event] = []
  var rejected: [Rejection] = []
  for (index, element) in elements.enumerated() {
    switch EventValidator().validate(element, receivedAtMs: receivedAtMs) {
    case .success(let event): events.append(event)
    case .failure(let error): rejected.append(Rejection(index: index, error: error.message))
    }
  }
  precondition(events == batch.events, "events differ from the parsed document's")
  precondition(rejected == batch.rejected, "rejections differ from the parsed document's")
}

/// The contract's per-event rules, restated, for every accepted event.
private func checkEvent(_ event: Event) {
  precondition(UpdateID.isValid(event.updateId), "bad updateId \(event.updateId)")
  precondition(isPrintable(event.appVersion, maxScalars: 32), "bad appVersion")
  for text in [event.id, event.installId] {
    if let text { precondition((1...64).contains(text.unicodeScalars.count), "bad id") }
  }
  for text in [event.osVersion, event.previousAppVersion] {
    if let text { precondition(isPrintable(text, maxScalars: 32), "bad version \(text)") }
  }
  let earliest = receivedAtMs - 90 * 86_400_000
  let latest = receivedAtMs + 10 * 60 * 1000
  precondition((earliest...latest).contains(event.timestampMs), "timestamp out of range")
}

/// 1 to `maxScalars` Unicode scalars, none a control character.
private func isPrintable(_ text: String, maxScalars: Int) -> Bool {
  let scalars = text.unicodeScalars
  return (1...maxScalars).contains(scalars.count)
    && scalars.allSatisfy { $0.properties.generalCategory != .control }
}
