import Foundation
import UptakeCore

/// Events read from an import's input, ready to store in one transaction.
struct ImportChunk: Sendable {
  /// Valid events, all checked against `receivedAtMs`.
  var events: [Event] = []
  /// The line number of each of `events`, for the store's rejections.
  var eventLines: [Int] = []
  /// The time of the import used as "received" for these events.
  var receivedAtMs: Int64
  /// Lines and valid events read so far, this chunk included.
  var linesRead = 0
  var eventsRead = 0
  /// Lines of this chunk that were rejected, and the messages of those
  /// among the first `shownRejections` of the whole input.
  var rejected = 0
  var rejections: [LineRejection] = []
  /// Set on the last chunk when reading failed: the `errno`.
  var readError: Int32?
}
