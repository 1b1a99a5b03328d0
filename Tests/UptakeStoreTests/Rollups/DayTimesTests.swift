import Testing
import UptakeCore
import UptakeTestSupport

@testable import UptakeStore

/// day_times (schema/0017): many installs' times of a day to a row, rows
/// split by key prefix. What a day holds, and which rows hold it, must not
/// depend on the order the times came in or how many fold steps wrote
/// them.
@Suite("day_times: a day's times, many installs to a row")
struct DayTimesTests {
  @Test("prefixes: signed keys in order, halves that cover their prefix")
  func prefixes() {
    #expect(DayTimes.unsigned(Int64.min) == 0)
    #expect(DayTimes.unsigned(-1) < DayTimes.unsigned(0))
    #expect(DayTimes.unsigned(Int64.max) == UInt64.max)
    for key: Int64 in [.min, -5, -1, 0, 1, 42, .max] {
      #expect(DayTimes.signed(DayTimes.unsigned(key)) == key)
      #expect(DayTimes.Prefix.all.contains(DayTimes.unsigned(key)))
    }
    let halves = DayTimes.Prefix.all.halves!
    #expect(halves.low.installFrom == Int64.min)
    #expect(halves.high.installFrom == 0)
    #expect(
      halves.low.contains(DayTimes.unsigned(-1)) && !halves.low.contains(DayTimes.unsigned(0)))
    #expect(
      halves.high.contains(DayTimes.unsigned(0)) && halves.high.contains(DayTimes.unsigned(.max)))
    #expect(DayTimes.Prefix(start: 7, bits: 64).halves == nil)
    #expect(DayTimes.Prefix(start: 7, bits: 64).contains(7))
    #expect(!DayTimes.Prefix(start: 7, bits: 64).contains(8))
  }

  /// Each install's times on a day: versions 2.0 and, for even keys, 2.1,
  /// every time of an hour apart (`times` of them).
  static func rows(installs: Int, times: Int) -> [(key: Int64, version: String, times: [UInt8])] {
    let dayStartMs = Int64(20_000) * Timestamp.msPerDay
    var rows: [(key: Int64, version: String, times: [UInt8])] = []
    for install in 0..<installs {
      // Keys spread over the whole signed range, as install keys are.
      let key = Int64(bitPattern: UInt64(install) &* 0x9E37_79B9_7F4A_7C15)
      for version in install % 2 == 0 ? ["2.0", "2.1"] : ["2.0"] {
        var packed: [UInt8] = []
        SeenTimes.pack(
          (0..<times).map {
            (dayStartMs + Int64($0) * 3_600_000 + Int64(install), $0 == 1 ? "u1" : nil)
          },
          dayStartMs: dayStartMs, into: &packed)
        rows.append((key, version, packed))
      }
    }
    return rows
  }

  /// A writer holding `rows`, of app 1 on day 20,000.
  static func writer(_ rows: [(key: Int64, version: String, times: [UInt8])]) -> DayTimesWriter {
    var writer = DayTimesWriter()
    for row in rows {
      writer.add(
        InstallScope(appNo: 1, isTest: false, installKey: row.key), day: 20_000,
        version: row.version, times: row.times)
    }
    return writer
  }

  /// Writes `steps` of rows, each step one writer's, and returns the table
  /// as lines.
  static func written(_ steps: [[(key: Int64, version: String, times: [UInt8])]]) throws -> [String]
  {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    for step in steps {
      var writer = Self.writer(step)
      try database.write { () throws(StoreError) in try writer.write(database) }
    }
    let select = try database.statement(
      "SELECT install_from, bits, hex(packed), length(packed) FROM day_times ORDER BY install_from")
    var lines: [String] = []
    while try select.step() {
      #expect(select.int64(3) <= DayTimes.maxBytes, "a row past the size it splits at")
      lines.append("\(select.int64(0)) \(select.int64(1)) \(select.string(2))")
    }
    select.reset()
    return lines
  }

  @Test("the same rows whether written at once, in steps, reversed, or growing step by step")
  func sameRowsInAnyOrder() throws {
    let final = Self.rows(installs: 1_500, times: 3)
    let atOnce = try Self.written([final])
    #expect(atOnce.count > 8, "enough installs to split the day's row several times")

    let inSteps = try Self.written([
      Array(final[..<700]), Array(final[700...]).reversed(),
    ])
    #expect(inSteps == atOnce)

    // Fewer times first, then every time: each row replaced whole.
    let growing = try Self.written([
      Self.rows(installs: 1_500, times: 1).shuffled(), Self.rows(installs: 1_500, times: 2),
      final.shuffled(),
    ])
    #expect(growing == atOnce)
  }

  @Test("every entry read back from the row covering its key")
  func readBack() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let database = try scratch.openDatabase()
    let rows = Self.rows(installs: 800, times: 4)
    var writer = Self.writer(rows)
    try database.write { () throws(StoreError) in try writer.write(database) }
    let find = try database.statement(DayTimesWriter.findRow)
    var missing = 0
    for row in rows {
      try find.bind(1, Int64(1))
      try find.bind(2, Int64(0))
      try find.bind(3, Int64(20_000))
      try find.bind(4, row.key)
      var found = false
      if try find.step() {
        let prefix = DayTimes.Prefix(installFrom: find.int64(0), bits: find.int64(1))
        #expect(prefix.contains(DayTimes.unsigned(row.key)))
        find.withBlob(2) { packed in
          DayTimes.forEach(in: packed, prefix: prefix) { key, version, times in
            if key == row.key && String(decoding: version, as: UTF8.self) == row.version
              && Array(times) == row.times
            {
              found = true
            }
          }
        }
      }
      find.reset()
      if !found { missing += 1 }
    }
    #expect(missing == 0, "\(missing) of \(rows.count) entries not found")
  }
}
