/// day_times (schema/0017): every distinct time each install was seen on
/// each version on a day, with the updates it downloaded then, many
/// installs to a row, so a fold step writes a row once however many of its
/// installs it touches.
///
/// A row covers the install keys of one binary prefix of the key, read
/// unsigned with the sign bit flipped so that prefixes follow the table's
/// order: `bits` long, from `install_from` on. A day starts with one row
/// for every key; a row past `maxBytes` splits into the two halves of its
/// prefix, again while a half is past it, and empty halves stay. So every
/// key of a day with rows falls in exactly one, the one with the greatest
/// `install_from` at or below it. Times are only ever added, so a prefix
/// is split exactly when what it holds is past `maxBytes`: the rows a day
/// has depend on the times alone, never on the order they came in.
///
/// A row's entries, in install key order and for one install in version
/// bytes order: the key's distance from the previous entry's (from the
/// row's first key for the first; 0 for another version of the same
/// install) as a `Varint`; the version (`PackedText`); the times' byte
/// count (`Varint`) and the times (`SeenTimes`, from the day's start).
enum DayTimes {
  /// A row past this many bytes splits: under the 4 KiB SQLite keeps of a
  /// row in its 16 KiB page before spilling to overflow pages.
  static let maxBytes = 3_000

  /// Flips the sign bit: signed order becomes unsigned order.
  private static let signBit: UInt64 = 1 << 63

  static func unsigned(_ installKey: Int64) -> UInt64 { UInt64(bitPattern: installKey) ^ signBit }

  static func signed(_ unsigned: UInt64) -> Int64 { Int64(bitPattern: unsigned ^ signBit) }

  /// The install keys a row covers: a prefix of `bits` bits, from `start`
  /// (unsigned, as `unsigned` reads keys).
  struct Prefix: Equatable {
    let start: UInt64
    let bits: Int

    /// The whole key space: a day's first row.
    static let all = Prefix(start: 0, bits: 0)

    init(start: UInt64, bits: Int) {
      self.start = start
      self.bits = bits
    }

    /// The prefix of a row as stored.
    init(installFrom: Int64, bits: Int64) {
      self.init(start: DayTimes.unsigned(installFrom), bits: Int(clamping: bits))
    }

    var installFrom: Int64 { DayTimes.signed(start) }

    func contains(_ key: UInt64) -> Bool {
      // A shift by 64 or more is 0 in Swift: every key has the empty prefix.
      key >= start && (key &- start) >> UInt64(64 - bits) == 0
    }

    /// Its two halves; nil for a single key.
    var halves: (low: Prefix, high: Prefix)? {
      guard bits < 64 else { return nil }
      return (
        Prefix(start: start, bits: bits + 1),
        Prefix(start: start | (1 << UInt64(63 - bits)), bits: bits + 1)
      )
    }
  }

  /// Calls `body` with each entry of a row, in order; the bytes are valid
  /// only inside. Stops at a malformed entry.
  static func forEach(
    in row: UnsafeRawBufferPointer, prefix: Prefix,
    _ body: (
      _ installKey: Int64, _ version: UnsafeBufferPointer<UInt8>, _ times: UnsafeRawBufferPointer
    )
      -> Void
  ) {
    var offset = 0
    var key = prefix.start
    while offset < row.count {
      guard let distance = Varint.unpack(row, &offset),
        let version = PackedText.unpack(row, &offset),
        let count = Varint.unpack(row, &offset), offset + Int(count) <= row.count
      else { return }
      key &+= distance
      body(
        signed(key), version, UnsafeRawBufferPointer(rebasing: row[offset..<offset + Int(count)]))
      offset += Int(count)
    }
  }

  /// An entry whose bytes lie in one of the buffers `pack` is given. Its
  /// ranges are 32-bit: a fold step holds one for every install row it
  /// touches, hundreds of thousands in a flood.
  struct Entry {
    let key: UInt64
    private let versionStart: Int32
    private let versionEnd: Int32
    private let timesStart: Int32
    private let timesEnd: Int32
    /// Which buffer holds `version` and `times`.
    let source: UInt8

    init(key: UInt64, source: Int, version: Range<Int>, times: Range<Int>) {
      self.key = key
      self.source = UInt8(source)
      versionStart = Int32(version.lowerBound)
      versionEnd = Int32(version.upperBound)
      timesStart = Int32(times.lowerBound)
      timesEnd = Int32(times.upperBound)
    }

    var version: Range<Int> { Int(versionStart)..<Int(versionEnd) }
    var times: Range<Int> { Int(timesStart)..<Int(timesEnd) }
  }

  /// The entries of a row held in `row`, as `Entry`s of `source`.
  static func entries(of row: [UInt8], prefix: Prefix, source: Int) -> [Entry] {
    var entries: [Entry] = []
    row.withUnsafeBytes { row in
      var offset = 0
      var key = prefix.start
      while offset < row.count {
        guard let distance = Varint.unpack(row, &offset), offset < row.count else { return }
        let versionStart = offset + 1
        offset = versionStart + Int(row[offset])
        guard offset <= row.count, let count = Varint.unpack(row, &offset),
          offset + Int(count) <= row.count
        else { return }
        key &+= distance
        entries.append(
          Entry(
            key: key, source: source,
            version: versionStart..<versionStart + Int(row[versionStart - 1]),
            times: offset..<offset + Int(count)))
        offset += Int(count)
      }
    }
    return entries
  }

  /// Packs `entries` (in row order, all within `prefix`) as a row.
  static func pack(
    _ entries: ArraySlice<Entry>, prefix: Prefix, sources: [[UInt8]], into bytes: inout [UInt8]
  ) {
    var previous = prefix.start
    for entry in entries {
      Varint.pack(entry.key &- previous, into: &bytes)
      previous = entry.key
      let source = sources[Int(entry.source)]
      bytes.append(UInt8(entry.version.count))
      bytes.append(contentsOf: source[entry.version])
      Varint.pack(UInt64(entry.times.count), into: &bytes)
      bytes.append(contentsOf: source[entry.times])
    }
  }

  /// Whether `left` comes before `right` in a row: by key, then by the
  /// version's bytes.
  static func precedes(_ left: Entry, _ right: Entry, sources: [[UInt8]]) -> Bool {
    if left.key != right.key { return left.key < right.key }
    return sources[Int(left.source)][left.version].lexicographicallyPrecedes(
      sources[Int(right.source)][right.version])
  }

  /// Whether two entries are of one install and version.
  static func sameRow(_ left: Entry, _ right: Entry, sources: [[UInt8]]) -> Bool {
    left.key == right.key
      && sources[Int(left.source)][left.version].elementsEqual(
        sources[Int(right.source)][right.version])
  }

  /// The rows `entries` (in row order, all within `prefix`) make: one, or
  /// the halves of the prefix while a row would be past `maxBytes`.
  static func rows(
    _ entries: ArraySlice<Entry>, prefix: Prefix, sources: [[UInt8]],
    _ body: (Prefix, [UInt8]) throws(StoreError) -> Void
  ) throws(StoreError) {
    var bytes: [UInt8] = []
    pack(entries, prefix: prefix, sources: sources, into: &bytes)
    guard bytes.count > maxBytes, let halves = prefix.halves else {
      try body(prefix, bytes)
      return
    }
    let split = entries.firstIndex { $0.key >= halves.high.start } ?? entries.endIndex
    try rows(entries[..<split], prefix: halves.low, sources: sources, body)
    try rows(entries[split...], prefix: halves.high, sources: sources, body)
  }
}
