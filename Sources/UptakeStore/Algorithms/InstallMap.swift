/// A hash map from install keys to values, for reports that hold tens of
/// thousands of installs per query. A key's slot comes from `SlotHash`, a
/// multiply keyed by the process's secret: not the key's own bits, which a
/// client can choose (install keys are unkeyed hashes of its installIds),
/// and no Hasher, which cost a quarter of a funnel's time.
///
/// Probes read only `keys` (0 marks an empty slot; the key 0 itself is
/// kept aside): 8 bytes a slot stay in cache where the values, several
/// times wider, would miss it on every probe of a large cohort.
struct InstallMap<Value> {
  private var keys: [Int64]
  private var values: [Value?]
  private var zeroKeyValue: Value?
  private(set) var count = 0
  private let hash = SlotHash.process
  /// 64 - log2(slots): `SlotHash.slot(_:shift:)` takes the high bits.
  private var shift: Int

  init(capacity: Int = 16) {
    let slots = Self.slotCount(forCapacity: capacity)
    keys = [Int64](repeating: 0, count: slots)
    values = [Value?](repeating: nil, count: slots)
    shift = 64 - slots.trailingZeroBitCount
  }

  subscript(key: Int64) -> Value? {
    if key == 0 { return zeroKeyValue }
    let slot = find(key)
    return keys[slot] == 0 ? nil : values[slot]
  }

  /// Changes the value of `key` in place, starting from `initial` when the
  /// key is new.
  mutating func update(_ key: Int64, initial: Value, _ body: (inout Value) -> Void) {
    if key == 0 {
      if zeroKeyValue == nil { count += 1 }
      var value = zeroKeyValue ?? initial
      body(&value)
      zeroKeyValue = value
      return
    }
    let slot = find(key)
    if keys[slot] != 0 {
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

  /// Changes the value of `key` in place when it is there: one probe where
  /// a lookup and then an update would take two.
  mutating func modify(_ key: Int64, _ body: (inout Value) -> Void) {
    if key == 0 {
      if zeroKeyValue != nil { body(&zeroKeyValue!) }
      return
    }
    let slot = find(key)
    if keys[slot] != 0 { body(&values[slot]!) }
  }

  /// The number of slots: what the map holds without growing is half.
  var slotCount: Int { keys.count }

  /// The slots of a map made for `capacity` keys.
  static func slotCount(forCapacity capacity: Int) -> Int {
    var slots = 16
    while slots < capacity * 2 { slots *= 2 }
    return slots
  }

  /// Empties the map and keeps its slots, for another query to fill
  /// without paying for fresh memory: the kernel zeroing a new map's pages
  /// as they were first touched was a tenth of a funnel. Only the keys are
  /// cleared; a value is read only where its slot holds a key.
  mutating func removeAll() {
    keys.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    zeroKeyValue = nil
    count = 0
  }

  /// Sets the value of `key`.
  mutating func set(_ key: Int64, _ value: Value) {
    update(key, initial: value) { $0 = value }
  }

  /// Every entry, in no particular order.
  func forEach<Failure: Error>(_ body: (Int64, Value) throws(Failure) -> Void) throws(Failure) {
    if let zeroKeyValue { try body(0, zeroKeyValue) }
    for slot in keys.indices where keys[slot] != 0 { try body(keys[slot], values[slot]!) }
  }

  /// The farthest any key lies from the slot it hashes to: how long a
  /// lookup can take (a test's measure of flooding).
  var longestProbe: Int {
    let mask = keys.count - 1
    var longest = 0
    for slot in keys.indices where keys[slot] != 0 {
      longest = max(longest, (slot - home(keys[slot])) & mask)
    }
    return longest
  }

  /// The slot `key` hashes to.
  @inline(__always)
  private func home(_ key: Int64) -> Int {
    hash.slot(key, shift: shift)
  }

  /// The slot holding `key` (not 0), or the empty slot where it would go.
  /// Inlined: called apart, a funnel's lookups took a sixth longer.
  @inline(__always)
  private func find(_ key: Int64) -> Int {
    let mask = keys.count - 1
    var slot = home(key)
    while keys[slot] != 0 && keys[slot] != key { slot = (slot + 1) & mask }
    return slot
  }

  private mutating func grow() {
    let old = (keys, values)
    keys = [Int64](repeating: 0, count: keys.count * 2)
    values = [Value?](repeating: nil, count: keys.count)
    shift -= 1
    count = zeroKeyValue == nil ? 0 : 1
    for slot in old.0.indices where old.0[slot] != 0 { set(old.0[slot], old.1[slot]!) }
  }
}

/// A set of install keys: distinct install counts.
typealias InstallSet = InstallMap<Void>

extension InstallMap where Value == Void {
  init<Keys: Collection>(_ keys: Keys) where Keys.Element == Int64 {
    self.init(capacity: keys.count)
    for key in keys { insert(key) }
  }

  mutating func insert(_ key: Int64) { update(key, initial: ()) { _ in } }

  func contains(_ key: Int64) -> Bool { self[key] != nil }
}

/// A map moves between threads only whole (a funnel's, kept for the next).
extension InstallMap: Sendable where Value: Sendable {}
