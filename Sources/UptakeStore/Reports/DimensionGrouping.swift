import CSQLite
import UptakeCore

/// The groups of one grouped report read from the dimension tables, and
/// their counts. A group is a cell: a time (day or hour number, 0 without
/// `date`) and a slot, which is the part (the values of the keys other than
/// date and action) and the action when `action` is a key.
struct DimensionGrouping {
  let keys: [GroupKey]
  let hourly: Bool
  let byDate: Bool
  let byAction: Bool
  /// The keys a part holds values of, in the order asked for.
  private let partKeys: [GroupKey]
  private var partValues: [[String?]] = []
  private var partNumbers: [[String?]: Int32] = [:]
  /// The part of each dims_no of the app; -1 for numbers of other apps.
  private var partOfDimsNo: [Int32] = []
  private var cells: [Cell: Counts] = [:]

  private struct Cell: Hashable {
    let time: Int64
    let slot: Int
  }

  private struct Counts {
    var events = 0
    var installs = 0
  }

  init(keys: [GroupKey], granularity: Granularity) {
    self.keys = keys
    byDate = keys.contains(.date)
    hourly = byDate && granularity == .hour
    byAction = keys.contains(.action)
    partKeys = keys.filter { $0 != .date && $0 != .action }
  }

  /// The most groups held so far: cells with counts, or the parts (the
  /// combinations of the keys other than date and action) the app's sets
  /// make, each of which is at least one row once it has events.
  var size: Int { max(cells.count, partValues.count) }

  /// Slots per time: parts times the actions told apart.
  var slotCount: Int { partValues.count * (byAction ? 4 : 1) }

  func slot(part: Int32, action: Int) -> Int {
    byAction ? Int(part) * 4 + action : Int(part)
  }

  /// The part of a dimension set, numbered when first met.
  mutating func part(of set: DimensionSet) -> Int32 {
    let values: [String?] = partKeys.map { key in
      switch key {
      case .updateId: set.updateId
      case .appVersion: set.appVersion
      case .platform: set.platform
      default: set.osVersion
      }
    }
    if let known = partNumbers[values] { return known }
    let number = Int32(partValues.count)
    partValues.append(values)
    partNumbers[values] = number
    return number
  }

  /// Records the part of a stored dimension set.
  mutating func register(dimsNo: Int64, _ set: DimensionSet) {
    let part = part(of: set)
    let index = Int(dimsNo)
    if partOfDimsNo.count <= index {
      partOfDimsNo.append(contentsOf: repeatElement(-1, count: index + 1 - partOfDimsNo.count))
    }
    partOfDimsNo[index] = part
  }

  /// The part of a stored dims_no; a number the app's sets do not hold
  /// would mean a damaged database.
  func part(dimsNo: Int64) throws(StoreError) -> Int32 {
    guard dimsNo >= 0, Int(dimsNo) < partOfDimsNo.count, partOfDimsNo[Int(dimsNo)] >= 0 else {
      throw .sqlite(
        code: SQLITE_CORRUPT, message: "dimension set \(dimsNo) is missing from dimension_sets",
        sql: nil)
    }
    return partOfDimsNo[Int(dimsNo)]
  }

  /// The cell time of a day or an hour number, as the grouping keeps it.
  func time(day: Int64) -> Int64 { byDate ? day : 0 }
  func time(hour: Int64) -> Int64 {
    guard byDate else { return 0 }
    return hourly ? hour : Timestamp.dayNumber(hour: hour)
  }

  mutating func addEvents(_ events: Int, time: Int64, slot: Int) {
    cells[Cell(time: time, slot: slot), default: Counts()].events += events
  }

  mutating func addInstalls(_ installs: Int, time: Int64, slot: Int) {
    cells[Cell(time: time, slot: slot), default: Counts()].installs += installs
  }

  /// The groups with events, unsorted.
  func rows() -> [GroupedRow] {
    cells.compactMap { cell, counts in
      guard counts.events > 0 else { return nil }
      let part = byAction ? cell.slot / 4 : cell.slot
      var partIndex = 0
      let values: [String?] = keys.map { key in
        switch key {
        case .date:
          return hourly
            ? ReportQueries.formatHour(cell.time) : Timestamp.formatDate(dayNumber: cell.time)
        case .action:
          return Action(rawValue: cell.slot % 4)?.name
        default:
          defer { partIndex += 1 }
          return partValues[part][partIndex]
        }
      }
      return GroupedRow(keys: values, events: counts.events, installs: counts.installs)
    }
  }
}
