/// The events of one hour of a day with one dimension set and action: a
/// row of the old hourly_dimension_counts as dimension_count_runs packs it
/// (schema/0012). The dimension set's number and the count as varints, the
/// action and the hour of the day a byte each: 4–6 bytes for most.
struct DimensionCount: PackedEntry, Equatable {
  var dimsNo: Int64
  var action: UInt8
  var hourOfDay: UInt8
  var events: Int64

  /// The order a merged run keeps, so equal keys lie together.
  func precedes(_ other: DimensionCount) -> Bool {
    if dimsNo != other.dimsNo { return dimsNo < other.dimsNo }
    if action != other.action { return action < other.action }
    return hourOfDay < other.hourOfDay
  }

  func sameKey(as other: DimensionCount) -> Bool {
    dimsNo == other.dimsNo && action == other.action && hourOfDay == other.hourOfDay
  }

  func pack(into bytes: inout [UInt8]) {
    Varint.pack(UInt64(bitPattern: dimsNo), into: &bytes)
    bytes.append(action)
    bytes.append(hourOfDay)
    Varint.pack(UInt64(bitPattern: events), into: &bytes)
  }

  /// The entry at `offset` of a dimension_count_runs blob, moving `offset`
  /// past it; nil at the end, or where the blob is cut short.
  static func unpack(_ blob: UnsafeRawBufferPointer, _ offset: inout Int) -> DimensionCount? {
    var at = offset
    guard let dims = Varint.unpack(blob, &at), at + 2 <= blob.count else { return nil }
    let action = blob[at]
    let hourOfDay = blob[at + 1]
    at += 2
    guard let events = Varint.unpack(blob, &at) else { return nil }
    offset = at
    return DimensionCount(
      dimsNo: Int64(bitPattern: dims), action: action, hourOfDay: hourOfDay,
      events: Int64(bitPattern: events))
  }

  /// Appends the entries of a dimension_count_runs blob to `counts`.
  static func unpackAll(_ blob: UnsafeRawBufferPointer, into counts: inout [DimensionCount]) {
    var offset = 0
    while let count = unpack(blob, &offset) { counts.append(count) }
  }
}
