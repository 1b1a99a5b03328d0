import Foundation
import Synchronization
import UptakeCore

/// Answers "which app and kind does this key name?" from memory, for every
/// request. It reloads the apps table when another connection changed the
/// database (PRAGMA data_version), checking at most every `refreshInterval`,
/// and always before refusing a key, so an app added or a key rotated with the
/// CLI works (or stops working) within a second, without a restart.
public final class KeyDirectory: Sendable {
  /// How stale a positive answer may be: a rotated key works for at most this.
  static let refreshIntervalNs: UInt64 = 1_000_000_000

  private struct State {
    var keys: [KeyDigest: (app: AppRecord, kind: KeyKind)] = [:]
    var dataVersion: Int64 = -1
    var lastCheckNs: UInt64 = 0
  }

  private let database: Mutex<Database>
  private let state = Mutex(State())

  /// Takes a connection of its own, used only to reload the keys.
  public init(database: sending Database) throws(StoreError) {
    self.database = Mutex(database)
    try refresh(force: true)
  }

  /// The app and kind of `token`, or nil for an unknown key.
  public func resolve(_ token: String) -> (app: AppRecord, kind: KeyKind)? {
    let hash = KeyDigest(KeyToken.hash(token))
    let now = DispatchTime.now().uptimeNanoseconds
    let (found, isStale) = state.withLock { state in
      (state.keys[hash], now &- state.lastCheckNs > Self.refreshIntervalNs)
    }
    if found == nil || isStale {
      try? refresh(force: false)
      return state.withLock { $0.keys[hash] }
    }
    return found
  }

  private func refresh(force: Bool) throws(StoreError) {
    try database.withLock { (database) throws(StoreError) in
      let version = try database.scalarInt("PRAGMA data_version") ?? 0
      let now = DispatchTime.now().uptimeNanoseconds
      let unchanged = state.withLock { state in
        state.lastCheckNs = now
        return state.dataVersion == version
      }
      if unchanged && !force { return }
      var keys: [KeyDigest: (app: AppRecord, kind: KeyKind)] = [:]
      for entry in try AppRegistry.keyHashes(in: database) {
        keys[KeyDigest(entry.hash)] = (entry.app, entry.kind)
      }
      state.withLock { state in
        state.keys = keys
        state.dataVersion = version
      }
    }
  }
}

/// A stored key's SHA-256, as a dictionary key whose equality runs in
/// constant time. A lookup compares the presented key's digest with the
/// stored digests in its bucket; an ordinary byte comparison stops at the
/// first difference, and its timing would tell how much of a stored digest
/// a guess matched. The hash that picks the bucket is Swift's, seeded at
/// random per process, so it tells an observer nothing either.
struct KeyDigest: Hashable, Sendable {
  let bytes: [UInt8]

  init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  static func == (lhs: KeyDigest, rhs: KeyDigest) -> Bool {
    KeyToken.constantTimeEquals(lhs.bytes, rhs.bytes)
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(bytes)
  }
}
