import Foundation

/// A named thread that runs one loop until told to stop: a node's
/// background work (`ShippingThread`, `ReportWarmer`). `stop()` wakes the
/// loop's waits and returns once the loop has ended.
final class BackgroundLoop: @unchecked Sendable {
  private let name: String
  private let condition = NSCondition()
  // Guarded by `condition`:
  private var stopping = false
  private var running = false

  init(name: String) {
    self.name = name
  }

  /// Runs `body` on a thread of its own.
  func start(_ body: @escaping @Sendable () -> Void) {
    condition.lock()
    running = true
    condition.unlock()
    let thread = Thread { [self] in
      body()
      condition.lock()
      running = false
      condition.broadcast()
      condition.unlock()
    }
    thread.name = name
    thread.start()
  }

  /// Asks the loop to end and waits until it has: at once if it never
  /// started.
  func stop() {
    condition.lock()
    stopping = true
    condition.broadcast()
    while running { condition.wait() }
    condition.unlock()
  }

  var isStopping: Bool {
    condition.lock()
    defer { condition.unlock() }
    return stopping
  }

  /// Waits `seconds` unless stopped; false once stopping.
  @discardableResult
  func wait(seconds: Double) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    let until = Date().addingTimeInterval(seconds)
    while !stopping && condition.wait(until: until) {}
    return !stopping
  }
}
