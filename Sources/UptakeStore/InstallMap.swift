/// A hash map from install keys to values, for reports that hold tens of
/// thousands of installs per query. Install keys are already uniformly
/// mixed 64-bit hashes (StableHash.installKey), so their low bits pick the
/// slot directly: no Hasher, which cost a quarter of a funnel's time.
struct InstallMap<Value> {
  private var keys: [Int64]
  private var values: [Value?]
  private(set) var count = 0

  init(capacity: Int = 16) {
    var slots = 16
    while slots < capacity * 2 { slots *= 2 }
    keys = [Int64](repeating: 0, count: slots)
    values = [Value?](repeating: nil, count: slots)
  }

  subscript(key: Int64) -> Value? { values[find(key)] }

  /// Changes the value of `key` in place, starting from `initial` when the
  /// key is new; `body` returns false to leave a new key out after all.
  mutating func update(_ key: Int64, initial: Value, _ body: (inout Value) -> Void) {
    let slot = find(key)
    if values[slot] != nil {
      body(&values[slot]!)
      return
    }
    var value = initial
    body(&value)
    keys[slot] = key
    values[slot] = value
    count += 1
    if count * 2 > keys.count { grow() }
  }

  /// Sets the value of `key`.
  mutating func set(_ key: Int64, _ value: Value) {
    update(key, initial: value) { $0 = value }
  }

  /// Every entry, in no particular order.
  func forEach(_ body: (Int64, Value) throws(StoreError) -> Void) throws(StoreError) {
    for slot in keys.indices {
      if let value = values[slot] { try body(keys[slot], value) }
    }
  }

  private func find(_ key: Int64) -> Int {
    let mask = keys.count - 1
    var slot = Int(truncatingIfNeeded: key) & mask
    while values[slot] != nil && keys[slot] != key { slot = (slot + 1) & mask }
    return slot
  }

  private mutating func grow() {
    let old = (keys, values)
    keys = [Int64](repeating: 0, count: keys.count * 2)
    values = [Value?](repeating: nil, count: keys.count)
    count = 0
    for slot in old.0.indices {
      if let value = old.1[slot] { set(old.0[slot], value) }
    }
  }
}

/// A set of install keys: distinct install counts.
typealias InstallSet = InstallMap<Void>

extension InstallMap where Value == Void {
  mutating func insert(_ key: Int64) { update(key, initial: ()) { _ in } }
}
