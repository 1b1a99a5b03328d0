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
    /// Tokens already found in `keys`, by a seeded hash of their bytes, so
    /// a keep-alive client's token costs one SHA-256, not one a request
    /// (docs/performance.md). Only tokens found in `keys` enter, so there
    /// is at most one entry a stored key and a flood of random keys cannot
    /// grow it.
    var verified: [Int: VerifiedToken] = [:]
    var dataVersion: Int64 = -1
    var lastCheckNs: UInt64 = 0

    /// The key with this digest; remembered as verified when found, in the
    /// same critical section, so a reload cannot be overtaken by a token it
    /// revoked.
    mutating func lookUp(_ hash: KeyDigest, remembering token: [UInt8], as slot: Int)
      -> (app: AppRecord, kind: KeyKind)?
    {
      guard let found = keys[hash] else { return nil }
      verified[slot] = VerifiedToken(token: token, app: found.app, kind: found.kind)
      return found
    }
  }

  private struct VerifiedToken {
    let token: [UInt8]
    let app: AppRecord
    let kind: KeyKind
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
    let presented = Array(token.utf8)
    let slot = presented.hashValue
    let now = DispatchTime.now().uptimeNanoseconds
    let (cached, isStale) = state.withLock { state in
      (state.verified[slot], now &- state.lastCheckNs > Self.refreshIntervalNs)
    }
    // Compared in constant time like the digests: the cache must not let
    // response timing tell how much of a key a guess got right.
    if !isStale, let cached, KeyToken.constantTimeEquals(cached.token, presented) {
      return (cached.app, cached.kind)
    }
    let hash = KeyDigest(KeyToken.hash(token))
    if !isStale, let found = state.withLock({ $0.lookUp(hash, remembering: presented, as: slot) }) {
      return found
    }
    try? refresh(force: false)
    return state.withLock { $0.lookUp(hash, remembering: presented, as: slot) }
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
        state.verified = [:]
        state.dataVersion = version
      }
    }
  }
}
