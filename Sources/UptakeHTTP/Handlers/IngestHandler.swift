import Foundation
import UptakeCore
import UptakeStore

/// `POST /v1/events`: decode and validate the batch on the request's thread,
/// then hand the accepted events to the batch writer and answer once they are
/// committed. Events are counted into `IngestMetrics` as they are decided.
struct IngestHandler: Sendable {
  /// Seconds a client should wait after a 503, long enough for a full queue
  /// to drain or a disk to be freed, short enough to keep data flowing.
  static let retryAfterSeconds = 2

  let writer: BatchWriter
  let decoder: EventBatchDecoder
  let metrics: IngestMetrics
  let clock: @Sendable () -> Int64
  /// The cap on a gzip body once decoded (`ServerLimits.maxDecodedBodyBytes`).
  var maxDecodedBodyBytes = ServerLimits().maxDecodedBodyBytes

  var route: Route {
    Route("POST", "/v1/events", access: .ingestKey, admit: Self.admit) { request in
      handle(request)
    }
  }

  /// Refuses what the head already rules out: wrong media type or encoding.
  static func admit(_ head: RequestHead) -> APIError? {
    let contentType = head.header("content-type")?[...] ?? ""
    let mediaType = contentType.utf8.firstIndex(of: UInt8(ascii: ";")).map { contentType[..<$0] }
    guard HeaderBytes.matches(mediaType ?? contentType, "application/json") else {
      return .unsupportedMediaType("Content-Type must be application/json")
    }
    if let encoding = head.header("content-encoding")?[...], !isGzip(head),
      !HeaderBytes.matches(encoding, "identity") && !HeaderBytes.trimmed(encoding).isEmpty
    {
      return .unsupportedMediaType("Content-Encoding must be gzip or identity")
    }
    return nil
  }

  /// True when the body is gzip-encoded; `admit` has refused other encodings.
  static func isGzip(_ head: RequestHead) -> Bool {
    head.header("content-encoding").map { HeaderBytes.matches($0[...], "gzip") } ?? false
  }

  func handle(_ request: Request) -> HandlerOutcome {
    guard let app = request.app else { return .respond(APIError.unauthorized.response) }
    var body = request.body
    if Self.isGzip(request.head) {
      do throws(GzipDecoder.Failure) {
        body = try GzipDecoder.decode(body, maxOutputBytes: maxDecodedBodyBytes)
      } catch .tooLarge {
        return .respond(
          APIError.payloadTooLarge(
            "body over \(maxDecodedBodyBytes) bytes after gzip decoding"
          ).response)
      } catch {
        return .respond(APIError.badRequest("body is not valid gzip").response)
      }
    }
    let receivedAtMs = clock()
    let batch: DecodedBatch
    do throws(BatchDecodingError) {
      batch = try decoder.decode(body, receivedAtMs: receivedAtMs)
    } catch {
      switch error {
      case .eventTooLarge(let index):
        return .respond(APIError.payloadTooLarge("events[\(index)] is over 32 KiB").response)
      case .badRequest(let message):
        return .respond(APIError.badRequest(message).response)
      }
    }
    metrics.rejected(batch.rejected)
    guard !batch.events.isEmpty else {
      return .respond(Self.answer(InsertOutcome(), batch.rejected))
    }
    let eventBatch = EventBatch(appNo: app.appNo, events: batch.events, receivedAtMs: receivedAtMs)
    let rejected = batch.rejected
    let eventIndexes = batch.eventIndexes
    let writer = self.writer
    let metrics = self.metrics
    return .deferred { respond in
      let queued = writer.submit(eventBatch) { result in
        switch result {
        case .success(let outcome):
          metrics.stored(outcome)
          respond(
            Self.answer(
              outcome, Self.merged(rejected, outcome.rejected, eventIndexes: eventIndexes)))
        case .failure(.overloaded):
          respond(Self.overloaded.response)
        case .failure(.unavailable):
          respond(
            APIError.unavailable(
              "storage cannot take writes", retryAfterSeconds: Self.retryAfterSeconds
            ).response)
        case .failure(.failed):
          respond(APIError.internalError.response)
        }
      }
      if !queued { respond(Self.overloaded.response) }
    }
  }

  /// The validator's rejections and the store's (whose indexes are
  /// positions among the valid events) as one list by request index, as
  /// the contract lists them.
  static func merged(_ validation: [Rejection], _ store: [Rejection], eventIndexes: [Int])
    -> [Rejection]
  {
    guard !store.isEmpty else { return validation }
    let stored = store.map { Rejection(index: eventIndexes[$0.index], error: $0.error) }
    return (validation + stored).sorted { $0.index < $1.index }
  }

  private static let overloaded = APIError.unavailable(
    "ingest queue full or shutting down", retryAfterSeconds: retryAfterSeconds)

  /// The contract's 200 body.
  static func answer(_ outcome: InsertOutcome, _ rejected: [Rejection]) -> Response {
    if rejected.isEmpty {
      // Nearly every answer: two numbers in a fixed text, which costs fewer
      // instructions than `JSONWriter` spends on it (docs/performance.md).
      let text =
        #"{"accepted":\#(outcome.accepted),"duplicates":\#(outcome.duplicates),"rejected":[]}"#
      return .json(Array(text.utf8))
    }
    var writer = JSONWriter()
    writer.beginObject()
    writer.member("accepted", outcome.accepted)
    writer.member("duplicates", outcome.duplicates)
    writer.key("rejected")
    writer.beginArray()
    for rejection in rejected {
      writer.beginObject()
      writer.member("index", rejection.index)
      writer.member("error", rejection.error)
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    return .json(writer)
  }
}
