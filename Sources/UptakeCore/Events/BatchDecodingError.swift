/// Why a whole ingest request is refused.
public enum BatchDecodingError: Error, Sendable, Equatable {
  /// 400 `bad_request`: not JSON, invalid UTF-8, not an object, no `events`
  /// array, 0 or too many events. The text says which, for the response.
  case badRequest(String)
  /// 413 `payload_too_large`: the event at this index of `events` is over
  /// `IngestLimits.maxEventBytes`.
  case eventTooLarge(index: Int)
}
