/// Why a batch could not be stored.
public enum IngestFailure: Error, Sendable {
  /// The queue is full or the writer is stopping: the client should retry.
  case overloaded
  /// Storage refused the commit (disk full, read-only, I/O error).
  case unavailable(String)
  /// Anything else; a bug or a damaged database.
  case failed(String)
}
