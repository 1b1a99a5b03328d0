import UptakeCore

/// The keys of a newly created app, shown once.
public struct NewAppKeys: Sendable {
  public let appId: String
  public let ingestKey: String
  public let readKey: String

  public init(appId: String, ingestKey: String, readKey: String) {
    self.appId = appId
    self.ingestKey = ingestKey
    self.readKey = readKey
  }
}
