import UptakeCore

/// The keys of a newly created app, shown once.
public struct NewAppKeys: Sendable {
  public let appId: String
  public let ingestKey: String
  public let readKey: String
}
