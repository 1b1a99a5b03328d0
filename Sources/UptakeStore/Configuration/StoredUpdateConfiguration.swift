import UptakeCore

/// One stored version of an app's update configuration.
public struct StoredUpdateConfiguration: Sendable {
  public let appNo: Int64
  /// 1 for an app's first put, then one more for each put.
  public let version: Int64
  public let createdAtMs: Int64
  /// The validated document exactly as it was put.
  public let documentText: String

  /// The document read again. Nil only when it no longer passes this
  /// build's validation (it was stored by another build, or edited by hand).
  public var configuration: UpdateConfiguration? {
    try? UpdateConfigurationDecoder.decode(Array(documentText.utf8)).get()
  }
}
