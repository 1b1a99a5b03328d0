/// An app's update configuration: the JSON document the product team keeps
/// under version control and loads with `uptake updates put`. Only
/// `UpdateConfigurationDecoder` makes one, so every value here has passed
/// validation as a whole.
public struct UpdateConfiguration: Sendable, Equatable {
  /// The entries in document order; at most one per platform, and each
  /// `updateId` names one entry.
  public let entries: [UpdateEntry]
  /// The document exactly as it was given, which is what is stored and what
  /// `uptake updates get` prints.
  public let documentText: String

  init(entries: [UpdateEntry], documentText: String) {
    self.entries = entries
    self.documentText = documentText
  }

  /// The entry for `platform`, if one is configured.
  public func entry(for platform: Platform) -> UpdateEntry? {
    entries.first { $0.platform == platform }
  }

  /// The entry named `updateId`, if one is configured.
  public func entry(updateId: String) -> UpdateEntry? {
    entries.first { $0.updateId == updateId }
  }
}
