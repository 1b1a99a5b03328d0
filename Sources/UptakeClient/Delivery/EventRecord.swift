import Foundation

/// One event as the ingest API takes it; its JSON is what the queue stores
/// and what goes out, byte for byte, on every try.
struct EventRecord: Encodable {
  let id: String
  let updateId: String
  let action: String
  let appVersion: String
  let installId: String
  let timestamp: String
  let osVersion: String?
  let platform: String

  /// RFC 3339 in UTC with milliseconds, as the contract's `timestamp` takes it.
  static func timestamp(_ date: Date) -> String {
    Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
  }

  /// The contract's rule for an `updateId`: 1–64 of `[A-Za-z0-9._:-]`.
  /// UptakeCore's `UpdateID` holds the server's copy; apps embed this
  /// library alone, so it cannot import that one.
  static func isValidUpdateId(_ text: String) -> Bool {
    (1...64).contains(text.utf8.count)
      && text.utf8.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
          UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
          UInt8(ascii: ":"), UInt8(ascii: "-"):
          true
        default:
          false
        }
      }
  }
}
