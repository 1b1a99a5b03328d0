import Foundation
import UptakeStore

/// Runs `first` on another thread while `second` runs on the caller's, and
/// returns both answers: two ClickHouse queries that each wait on every
/// shard then overlap, where one after the other a report waited for the
/// sum of both (docs/performance.md, session 24). `second` may work on
/// its own answer meanwhile.
func bothAtOnce<First: Sendable, Second>(
  _ first: @escaping @Sendable () throws(StoreError) -> First,
  _ second: () throws(StoreError) -> Second
) throws(StoreError) -> (First, Second) {
  let answer = FirstAnswer<First>()
  let done = DispatchGroup()
  DispatchQueue.global().async(group: done) {
    answer.result = Result { () throws(StoreError) in try first() }
  }
  // Waited for however `second` ends: `first` must not outlive the call.
  defer { done.wait() }
  let secondAnswer = try second()
  done.wait()
  guard let result = answer.result else { preconditionFailure("the group ended without it") }
  return (try result.get(), secondAnswer)
}

/// `first`'s answer, handed from its thread once the group has ended.
private final class FirstAnswer<Value>: @unchecked Sendable {
  var result: Result<Value, StoreError>?
}
