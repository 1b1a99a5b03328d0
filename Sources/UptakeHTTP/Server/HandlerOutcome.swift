import UptakeStore

/// What a handler does with a request: answer now, or answer later from
/// another thread (ingest answers once the batch writer has committed).
public enum HandlerOutcome: Sendable {
  case respond(Response)
  /// The adapter parks the connection and calls `start` with a function that
  /// sends the response; it may be called from any thread, exactly once.
  case deferred(@Sendable (_ respond: @escaping @Sendable (Response) -> Void) -> Void)
}
