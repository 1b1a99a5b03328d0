import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Takes the queue to the server batch by batch, retrying what may succeed
/// later and settling what never will.
final class Courier: @unchecked Sendable {
  private let configuration: UptakeConfiguration
  private let queue: EventQueue
  private let transport: HTTPTransport
  private let lock = NSLock()
  private var counters = Counters()
  /// No flush sends before this time: the server asked for a pause longer
  /// than a flush waits.
  private var notBefore = Date.distantPast

  /// Requests stay well under the contract's 1 MiB body limit whatever the
  /// events hold.
  static let maxBatchBytes = 512 * 1024

  struct Counters: Sendable {
    var delivered = 0
    var duplicates = 0
    var rejected = 0
    var discarded = 0
  }

  init(configuration: UptakeConfiguration, queue: EventQueue, transport: HTTPTransport) {
    self.configuration = configuration
    self.queue = queue
    self.transport = transport
  }

  var settledCounters: Counters { lock.sync { counters } }

  func countRejected(_ events: Int) {
    lock.sync { counters.rejected += events }
  }

  /// Sends batches until the queue is empty, a batch has used up its tries,
  /// or the task is cancelled. Never runs twice at once (the client sees to
  /// it), so batches go out in order and each is removed by its own ids.
  func deliver() async -> FlushResult {
    var result = FlushResult()
    if lock.sync({ Date() >= notBefore }) {
      while !Task.isCancelled {
        let batch = queue.oldest(
          limit: configuration.limits.batchSize, maxBytes: Courier.maxBatchBytes)
        if batch.isEmpty { break }
        guard await deliver(batch, result: &result) else { break }
      }
    }
    result.remaining = queue.count
    return result
  }

  /// Tries one batch until it is settled (true) or the flush must stop
  /// (false).
  private func deliver(_ batch: [QueuedEvent], result: inout FlushResult) async -> Bool {
    let limits = configuration.limits
    let request = ingestRequest(batch)
    var attempt = 0
    while true {
      attempt += 1
      result.requests += 1
      let answer: IngestAnswer
      if let http = try? await transport.send(request, deadline: limits.requestTimeout) {
        answer = IngestAnswer(http, batchSize: batch.count)
      } else {
        answer = .retry(retryAfter: nil)
      }
      switch answer {
      case .stored(let accepted, let duplicates, let rejected):
        settle(batch, result: &result) { counters in
          counters.delivered += accepted
          counters.duplicates += duplicates
          counters.rejected += rejected
        }
        return true
      case .refused:
        settle(batch, result: &result) { $0.discarded += batch.count }
        return true
      case .retry(let retryAfter):
        guard attempt < limits.attemptsPerFlush, (retryAfter ?? 0) <= limits.maxRetryAfterWait
        else {
          if let retryAfter { lock.sync { notBefore = Date().addingTimeInterval(retryAfter) } }
          return false
        }
        let backoff = RetryDelay.backoff(
          afterAttempt: attempt, initial: limits.initialBackoff, maximum: limits.maxBackoff)
        let delay = max(backoff, retryAfter ?? 0)
        do {
          try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
        } catch {
          return false
        }
      }
    }
  }

  private func settle(
    _ batch: [QueuedEvent], result: inout FlushResult, count: (inout Counters) -> Void
  ) {
    queue.remove(ids: Set(batch.map(\.id)))
    result.settled += batch.count
    lock.sync { count(&counters) }
  }

  /// The same bytes on every try, so the server sees the same ids.
  private func ingestRequest(_ batch: [QueuedEvent]) -> URLRequest {
    var body = Data(#"{"events":["#.utf8)
    for (index, event) in batch.enumerated() {
      if index > 0 { body.append(UInt8(ascii: ",")) }
      body += event.json
    }
    body += Data("]}".utf8)
    var request = URLRequest(url: configuration.baseURL.appendingPathComponent("v1/events"))
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue("Bearer \(configuration.ingestKey)", forHTTPHeaderField: "Authorization")
    request.httpBody = body
    return request
  }
}
