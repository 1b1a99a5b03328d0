/// The platform an event or a check is for; the raw values are the
/// contract's ingest platforms.
public enum Platform: String, Sendable, CaseIterable {
  case ios, ipados, macos, tvos, watchos, visionos, android, other

  /// The platform this code was compiled for. iPadOS cannot be told from iOS
  /// without UIKit, so an iPad app passes `.ipados` itself.
  public static var current: Platform {
    #if os(iOS)
      .ios
    #elseif os(macOS)
      .macos
    #elseif os(tvOS)
      .tvos
    #elseif os(watchOS)
      .watchos
    #elseif os(visionOS)
      .visionos
    #else
      .other
    #endif
  }
}
