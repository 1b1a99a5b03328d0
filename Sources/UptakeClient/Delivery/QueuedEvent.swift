import Foundation

/// One queued event: its ingest JSON (one line of a segment file) and the
/// segment holding it.
struct QueuedEvent: Sendable {
  let id: String
  let json: Data
  let segment: Int
}
