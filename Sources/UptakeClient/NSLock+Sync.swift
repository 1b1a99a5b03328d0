import Foundation

extension NSLock {
  /// Runs `body` holding the lock. Foundation's own `withLock` needs iOS 17
  /// and macOS 14, newer than the package's platforms.
  func sync<Value>(_ body: () throws -> Value) rethrows -> Value {
    lock()
    defer { unlock() }
    return try body()
  }
}
