import Foundation
import UptakeCluster
import UptakeCore
import UptakeStore

/// `uptake export`: a CSV summary for cron jobs and spreadsheets.
struct ExportCommand: Command {
  static let path = ["export"]
  static let summary = "write a CSV summary of an app's events"
  static let help = """
    usage: uptake export --app APPID [--from YYYY-MM-DD] [--to YYYY-MM-DD]
                         [--group-by K1,K2,...] [--test exclude|include|only]
                         [--since-last STATEFILE] [-o FILE]
                         [--db PATH | --clickhouse URL[,URL...]]

    Writes events and distinct installs grouped by the keys, as CSV (RFC 4180,
    UTF-8, header row). Columns: the keys in order (date, update_id, action,
    app_version, platform, os_version), then events, installs. Cells a
    spreadsheet would run as a formula are prefixed with an apostrophe.

    options:
      --app APPID          the app (required)
      --from, --to DATE    inclusive UTC dates (default: the last 30 days)
      --group-by KEYS      from date, updateId, action, appVersion, platform,
                           osVersion (default date,updateId,action)
      --test MODE          test events: exclude (default), include, only
      --since-last FILE    export only whole UTC days after the day recorded
                           in FILE (all days before today on the first run),
                           then record the last day exported; for cron. A
                           day is exported once: events arriving after that
                           (late phones) need a re-export with --from/--to
      -o FILE              write to FILE atomically instead of stdout,
                           keeping FILE's mode (and owner, as root)
      --db PATH            SQLite file (env UPTAKE_DB, default ./uptake.db)
    """ + ClusterArguments.help

  let appId: String
  let range: DayRange?
  let groupBy: [GroupKey]
  let test: TestFilter
  let stateFile: String?
  let outputPath: String?
  let databasePath: String
  let cluster: ClusterLayout?

  init(arguments: [String]) throws(CommandError) {
    let parsed = try Arguments(
      arguments,
      valueFlags: ReportOptions.valueFlags.union(["--group-by", "--since-last", "-o"]).union(
        ClusterArguments.valueFlags),
      booleanFlags: [])
    guard parsed.positionals.isEmpty else {
      throw .usage("unexpected argument \(parsed.positionals[0])")
    }
    appId = try ReportOptions.appId(parsed)
    stateFile = parsed.value("--since-last")
    if stateFile != nil {
      guard parsed.value("--from") == nil && parsed.value("--to") == nil else {
        throw .usage("--since-last chooses the days itself; drop --from and --to")
      }
      range = nil
    } else {
      range = try ReportOptions.range(parsed)
    }
    groupBy = try ReportOptions.groupBy(parsed)
    test = try ReportOptions.test(parsed)
    outputPath = parsed.value("-o")
    databasePath = parsed.databasePath
    cluster = try ClusterArguments.layout(parsed)
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    try checkApp()
    let today = Timestamp.dayNumber(ms: WallClock.nowMs())
    var exportRange = range
    if let stateFile {
      let firstDay = try Self.dayAfterRecorded(stateFile) ?? 0
      exportRange = firstDay <= today - 1 ? DayRange(fromDay: firstDay, toDay: today - 1) : nil
    }
    var csv = CSVWriter()
    csv.writeRow(groupBy.map(\.csvName) + ["events", "installs"])
    if let exportRange {
      for row in try rows(exportRange) {
        csv.writeRow(row.keys.map { $0 ?? "" } + [String(row.events), String(row.installs)])
      }
    }
    if let outputPath {
      try AtomicFile.write(csv.text, to: outputPath)
    } else {
      output.standardOutput(csv.text)
    }
    if let stateFile, let exportRange {
      try AtomicFile.write(Timestamp.formatDate(dayNumber: exportRange.toDay) + "\n", to: stateFile)
    }
  }

  /// The day after the one recorded in the state file; nil when the file
  /// does not exist yet (the first run).
  /// Opens the store (the cluster, its schema made, or the database) and
  /// checks the app, before the days are chosen: an unknown app fails
  /// even when no day is due.
  private func checkApp() throws(CommandError) {
    if let cluster {
      try ClusterArguments.requireApp(appId, in: try ClusterArguments.ready(cluster))
    } else {
      _ = try StoreAccess.app(appId, in: try StoreAccess.open(databasePath))
    }
  }

  /// The grouped rows of a range, from the cluster or the database.
  private func rows(_ range: DayRange) throws(CommandError) -> [GroupedRow] {
    if let cluster {
      do {
        return try ClusterReports(layout: cluster).grouped(
          appId: appId, keys: groupBy, granularity: .day, range: range, test: test)
      } catch {
        throw CommandError(message: error.description, exitCode: ExitCode.unavailable)
      }
    }
    let database = try StoreAccess.open(databasePath)
    let app = try StoreAccess.app(appId, in: database)
    do {
      return try ReportQueries(database: database).grouped(
        appNo: app.appNo, keys: groupBy, granularity: .day, range: range, test: test)
    } catch {
      throw .store(error)
    }
  }

  private static func dayAfterRecorded(_ path: String) throws(CommandError) -> Int64? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw CommandError(message: "cannot read state file \(path)", exitCode: ExitCode.ioError)
    }
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    guard let day = Timestamp.parseDate(text) else {
      throw .data("state file \(path) does not hold a date (YYYY-MM-DD): \"\(text)\"")
    }
    return day + 1
  }
}
