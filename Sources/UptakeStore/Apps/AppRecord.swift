import UptakeCore

/// An app as listed: its name and when it was created. Keys are never listed;
/// only their hashes are stored.
public struct AppRecord: Sendable, Equatable {
  public let appNo: Int64
  public let appId: String
  public let createdAtMs: Int64
}
