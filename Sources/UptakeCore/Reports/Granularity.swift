/// How finely `date` is bucketed.
public enum Granularity: String, Sendable {
  case day, hour
}
