import Foundation

/// What an app embeds: asks Uptake which update prompt to show, and reports
/// what the user did with it.
///
/// ```swift
/// let uptake = try UptakeClient(configuration: UptakeConfiguration(
///   baseURL: URL(string: "https://uptake.example.com")!,
///   ingestKey: "upi_…", appVersion: "2.0.0"))
/// if case .update(let prompt) = await uptake.check() {
///   uptake.record(.impression, updateId: prompt.updateId)
/// }
/// ```
///
/// `check` fails open and `record` never blocks on the network: a broken or
/// unreachable server never holds the app up. Recorded events wait in a
/// bounded on-disk queue until the server has stored them.
public final class UptakeClient: Sendable {
  /// What the client was created with.
  public let configuration: UptakeConfiguration
  /// The install's anonymous id, the same on every launch.
  public let installId: String
  private let queue: EventQueue
  private let courier: Courier
  private let checker: UpdateChecker
  private let flushes = FlushState()

  /// Opens (or creates) the storage directory and the queue a previous
  /// launch left; throws only when the directory cannot be used.
  public init(configuration: UptakeConfiguration) throws {
    self.configuration = configuration
    let directory = configuration.storageDirectory
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    installId = try InstallIdentity.load(in: directory)
    queue = try EventQueue(
      directory: directory.appendingPathComponent("queue", isDirectory: true),
      capacity: configuration.limits.maxQueuedEvents,
      segmentCapacity: configuration.limits.batchSize)
    let transport = HTTPTransport()
    courier = Courier(configuration: configuration, queue: queue, transport: transport)
    checker = UpdateChecker(
      configuration: configuration, installId: installId, transport: transport,
      cache: CheckCache(file: directory.appendingPathComponent("check-cache.json")))
    if queue.count > 0 { scheduleAutoFlush() }
  }

  /// Which prompt to show this install now. Any error, timeout or
  /// unreadable answer is `.noUpdate`.
  public func check() async -> UpdateDecision {
    await checker.check()
  }

  /// Queues what the user did with the prompt `updateId`. The event is on
  /// disk when this returns; it never throws and never waits for the network.
  public func record(_ action: Action, updateId: String) {
    guard EventRecord.isValidUpdateId(updateId) else {
      courier.countRejected(1)
      return
    }
    let event = EventRecord(
      id: UUID().uuidString.lowercased(), updateId: updateId, action: action.rawValue,
      appVersion: configuration.appVersion, installId: installId,
      timestamp: EventRecord.timestamp(Date()), osVersion: configuration.osVersion,
      platform: configuration.platform.rawValue)
    let encoder = JSONEncoder()
    // Sorted keys make the queue files and requests the same from run to run.
    encoder.outputFormatting = .sortedKeys
    guard let json = try? encoder.encode(event) else { return }
    if queue.append(id: event.id, json: json) { scheduleAutoFlush() }
  }

  /// Sends every queued event now, with retries, and returns when the queue
  /// is empty or the server stays out of reach for now. A flush already
  /// running is waited for, then this one runs, so it sends what was
  /// recorded before the call.
  @discardableResult
  public func flush() async -> FlushResult {
    while true {
      let (task, started) = flushes.task { [courier] in await courier.deliver() }
      let result = await task.value
      flushes.finished(task)
      if started { return result }
    }
  }

  /// Counts of what became of the events since this client was created.
  public var stats: UptakeClientStats {
    let settled = courier.settledCounters
    let losses = queue.lossCounters
    var stats = UptakeClientStats()
    stats.pending = queue.count
    stats.delivered = settled.delivered
    stats.duplicates = settled.duplicates
    stats.rejected = settled.rejected
    stats.discarded = settled.discarded
    stats.droppedOldest = losses.droppedOldest
    stats.writeFailures = losses.writeFailures
    stats.unreadableLines = losses.unreadableLines
    return stats
  }

  /// Flushes a moment after a record, so the events of that moment share a
  /// request; one such flush is pending at a time.
  private func scheduleAutoFlush() {
    guard let delay = configuration.limits.autoFlushDelay, flushes.claimAutoFlush() else { return }
    Task { [weak self] in
      try? await Task.sleep(nanoseconds: UInt64(max(0, delay) * 1_000_000_000))
      guard let self else { return }
      self.flushes.releaseAutoFlush()
      await self.flush()
    }
  }
}

/// The flush in progress, so that flushes never overlap.
private final class FlushState: @unchecked Sendable {
  private let lock = NSLock()
  private var running: Task<FlushResult, Never>?
  private var autoFlushPending = false

  /// The running flush, or a new one made of `operation` (then `started`).
  func task(_ operation: @escaping @Sendable () async -> FlushResult) -> (
    Task<FlushResult, Never>, started: Bool
  ) {
    lock.sync {
      if let running { return (running, false) }
      let task = Task(operation: operation)
      running = task
      return (task, true)
    }
  }

  func finished(_ task: Task<FlushResult, Never>) {
    lock.sync { if running == task { running = nil } }
  }

  func claimAutoFlush() -> Bool {
    lock.sync {
      defer { autoFlushPending = true }
      return !autoFlushPending
    }
  }

  func releaseAutoFlush() {
    lock.sync { autoFlushPending = false }
  }
}
