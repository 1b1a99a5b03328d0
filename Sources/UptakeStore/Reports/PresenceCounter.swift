/// Counts each group's distinct installs from install_presence rows (and
/// the unfolded events' sightings) met in (day, install) order.
///
/// When every group lies within one day (the grouping has the date, or the
/// range is one day), an install's rows of a day are all its rows in any
/// group it touches: each group counts one per run of rows, and no install
/// is remembered past its run. Otherwise each group keeps its installs'
/// keys, counted distinct at the end (`DistinctKeys`).
struct PresenceCounter {
  private let perRun: Bool
  private let hourly: Bool
  private let slotCount: Int
  /// Per run mode, per hour of the day (when hourly) and slot: the day's
  /// installs so far, and the run that last counted there.
  private let tally: Tally
  private var touched: [Int] = []
  /// Set mode: the installs of each slot.
  private var sets: [DistinctKeys]
  private var run = 0
  private var day = Int64.min
  private var install: Int64 = 0

  /// Whether rows must come in (day, install) order. Counting each group's
  /// set of installs takes them in any order, so a day's runs need not be
  /// merged.
  var needsInstallOrder: Bool { perRun }

  init(_ grouping: DimensionGrouping, perRun: Bool) {
    self.perRun = perRun
    hourly = grouping.hourly
    slotCount = grouping.slotCount
    let width = perRun ? slotCount * (hourly ? 24 : 1) : 0
    tally = Tally(width: width)
    sets = perRun ? [] : (0..<slotCount).map { _ in DistinctKeys() }
  }

  /// One row: the install's hours of each action (bit h for hour h) with
  /// the dimension set of `part`, on `day`.
  mutating func add(
    day: Int64, installKey: Int64, part: Int32, hours: SIMD4<Int64>,
    _ grouping: inout DimensionGrouping
  ) {
    if day != self.day || installKey != install || run == 0 {
      if day != self.day { flush(&grouping) }
      self.day = day
      install = installKey
      run += 1
    }
    for action in 0..<4 where hours[action] != 0 {
      let slot = grouping.slot(part: part, action: action)
      guard perRun else {
        sets[slot].insert(installKey)
        continue
      }
      guard hourly else {
        count(slot)
        continue
      }
      var bits = hours[action]
      while bits != 0 {
        count(bits.trailingZeroBitCount * slotCount + slot)
        bits &= bits - 1
      }
    }
  }

  private mutating func count(_ index: Int) {
    guard tally.stamps[index] != run else { return }
    tally.stamps[index] = run
    if tally.counts[index] == 0 { touched.append(index) }
    tally.counts[index] += 1
  }

  /// Hands the day's counts to the grouping.
  private mutating func flush(_ grouping: inout DimensionGrouping) {
    for index in touched {
      let hourOfDay = Int64(index / slotCount)
      let time =
        hourly ? grouping.time(hour: day * 24 + hourOfDay) : grouping.time(day: day)
      grouping.addInstalls(tally.counts[index], time: time, slot: index % slotCount)
      tally.counts[index] = 0
    }
    touched.removeAll(keepingCapacity: true)
  }

  /// Hands every count not handed yet to the grouping.
  mutating func finish(_ grouping: inout DimensionGrouping) {
    flush(&grouping)
    for slot in sets.indices where !sets[slot].isEmpty {
      grouping.addInstalls(sets[slot].distinctCount(), time: 0, slot: slot)
    }
  }
}

/// A counter's per-slot counts and stamps in memory of its own: the hot
/// loop touches them for every row and action, and as arrays each touch
/// paid a uniqueness check (docs/performance.md).
private final class Tally {
  let counts: UnsafeMutableBufferPointer<Int>
  let stamps: UnsafeMutableBufferPointer<Int>

  init(width: Int) {
    counts = .allocate(capacity: width)
    counts.initialize(repeating: 0)
    stamps = .allocate(capacity: width)
    stamps.initialize(repeating: 0)
  }

  deinit {
    counts.deallocate()
    stamps.deallocate()
  }
}
