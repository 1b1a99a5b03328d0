/// Which events a report counts, by their `test` flag.
public enum TestFilter: String, CaseIterable, Sendable {
  case exclude, include, only
}
