import Foundation
import Synchronization
import UptakeCore

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
