/// The platforms an event or an update configuration may name.
public enum Platform: String, CaseIterable, Sendable {
  case ios, ipados, macos, tvos, watchos, visionos, android, other
}
