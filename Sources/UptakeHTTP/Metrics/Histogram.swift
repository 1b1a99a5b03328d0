/// A Prometheus histogram's state: cumulative counts per upper bound, the
/// sum and the count of observations. A value, so a snapshot is a copy.
struct Histogram: Sendable {
  let bounds: [Double]
  private var counts: [Int]
  private var sum = 0.0
  private var count = 0

  init(bounds: [Double]) {
    self.bounds = bounds
    counts = Array(repeating: 0, count: bounds.count)
  }

  mutating func observe(_ value: Double) {
    for index in bounds.indices where value <= bounds[index] { counts[index] += 1 }
    sum += value
    count += 1
  }

  /// The `_bucket`, `_sum` and `_count` lines of metric `name`.
  func exposition(name: String, help: String) -> String {
    var text = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
    for (bound, bucketCount) in zip(bounds, counts) {
      text += "\(name)_bucket{le=\"\(Self.format(bound))\"} \(bucketCount)\n"
    }
    text += "\(name)_bucket{le=\"+Inf\"} \(count)\n"
    text += "\(name)_sum \(Self.format(sum))\n"
    text += "\(name)_count \(count)\n"
    return text
  }

  /// Whole numbers without a fraction, others as Swift prints them.
  private static func format(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
  }
}
