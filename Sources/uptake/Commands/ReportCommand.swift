import Foundation
import UptakeCluster
import UptakeCore
import UptakeStore

/// `uptake report`: the HTTP reports' figures as tables for a person.
struct ReportCommand: Command {
  static let path = ["report"]
  static let summary = "show an app's updates, or one update, as tables"
  static let help = """
    usage: uptake report --app APPID [--update ID] [--from YYYY-MM-DD]
                         [--to YYYY-MM-DD] [--test exclude|include|only]
                         [--db PATH | --clickhouse URL[,URL...]]

    Without --update: every update with events in the range, with its first
    and last event, its events by action, and its download, later and ignore
    rates (installs with that action over installs that saw the prompt; "—"
    when none saw it).
    With --update: that update's events and installs by action with the
    rates, its events per day, and its funnel: installs that saw the prompt,
    of those the ones that downloaded, of those the ones seen later on a
    higher version, and the median hours from prompt to that version.
    The figures are those of GET /v1/updates, /v1/updates/{id} and
    /v1/updates/{id}/funnel. With --clickhouse they are read from the
    cluster, with its live configuration, and print as one box's would for
    the same events.

    options:
      --app APPID          the app (required)
      --update ID          one update in detail
      --from, --to DATE    inclusive UTC dates (default: the last 30 days)
      --test MODE          test events: exclude (default), include, only
      --db PATH            SQLite file (env UPTAKE_DB, default ./uptake.db)
    """ + ClusterArguments.help + "\n\n" + """
      exit codes: 0 printed, 64 usage, 65 unknown app, 66 database missing,
      69 database busy (or the cluster cannot answer in full), 74 I/O error.
      """

  let appId: String
  let updateId: String?
  let range: DayRange
  let test: TestFilter
  let databasePath: String
  let cluster: ClusterLayout?

  init(arguments: [String]) throws(CommandError) {
    let parsed = try Arguments(
      arguments,
      valueFlags: ReportOptions.valueFlags.union(["--update"]).union(ClusterArguments.valueFlags),
      booleanFlags: [])
    guard parsed.positionals.isEmpty else {
      throw .usage("unexpected argument \(parsed.positionals[0])")
    }
    appId = try ReportOptions.appId(parsed)
    updateId = parsed.value("--update")
    if let updateId, !UpdateID.isValid(updateId) {
      throw .usage("--update: use 1 to 64 of A-Z a-z 0-9 . _ : -")
    }
    range = try ReportOptions.range(parsed)
    test = try ReportOptions.test(parsed)
    databasePath = parsed.databasePath
    cluster = try ClusterArguments.layout(parsed)
  }

  func run(_ output: inout CommandOutput) throws(CommandError) {
    let source = try ReportSource(appId: appId, databasePath: databasePath, cluster: cluster)
    do {
      if let updateId {
        output.standardOutput(try updateReport(updateId, source))
      } else {
        output.standardOutput(try updatesReport(source))
      }
    } catch {
      throw .store(error)
    }
  }

  /// Every update in the range, one line each.
  private func updatesReport(_ source: ReportSource) throws(StoreError) -> String {
    let configuration = source.configuration
    let updates = try source.updates(range: range, test: test)
    // The configuration's columns appear only for an app that has one.
    var table = TextTable(
      [.text("UPDATE"), .text("FIRST SEEN"), .text("LAST SEEN")]
        + Action.allCases.map { .number($0.name.uppercased()) }
        + Self.rated.map { .number($0.name.uppercased() + "%") }
        + (configuration == nil ? [] : [.text("PLATFORM"), .text("TARGET"), .text("OPTION")]))
    for update in updates {
      let detail = try source.update(update.updateId, range: range, test: test)
      let entry = configuration?.entry(updateId: update.updateId)
      table.append(
        [
          update.updateId, Timestamp.formatRFC3339(update.firstSeenMs),
          Timestamp.formatRFC3339(update.lastSeenMs),
        ] + update.events.map(String.init) + Self.rated.map { Self.percent(detail.rate($0)) }
          + (configuration == nil
            ? []
            : [
              entry?.platform.rawValue ?? Self.none, entry?.latestVersion.text ?? Self.none,
              entry?.option.name ?? Self.none,
            ]))
    }
    return title("updates of app \(source.appId)") + "\n" + table.text
  }

  /// One update: by action, by day, and its funnel.
  private func updateReport(_ updateId: String, _ source: ReportSource) throws(StoreError)
    -> String
  {
    let entry = source.configuration?.entry(updateId: updateId)
    let detail = try source.update(updateId, range: range, test: test)
    let funnel = try source.funnel(
      updateId, range: range, test: test, targetVersion: entry?.latestVersion.text)

    var actions = TextTable([
      .text("ACTION"), .number("EVENTS"), .number("INSTALLS"), .number("RATE"),
    ])
    for action in Action.allCases {
      let counts = detail.actions[action.rawValue]
      actions.append([
        action.name, String(counts.events), String(counts.installs),
        action == .impression ? "" : Self.percent(detail.rate(action)),
      ])
    }
    var days = TextTable([.text("DATE")] + Action.allCases.map { .number($0.name.uppercased()) })
    for day in detail.days {
      days.append([Timestamp.formatDate(dayNumber: day.day)] + day.events.map(String.init))
    }
    var funnelTable = TextTable([
      .number("IMPRESSIONS"), .number("DOWNLOADS"), .number("UPGRADED"),
      .number("MEDIAN HOURS TO UPGRADE"),
    ])
    funnelTable.append([
      String(funnel.impressions), String(funnel.downloads), String(funnel.upgraded),
      funnel.medianHoursToUpgrade.map { String(format: "%.1f", $0) } ?? Self.none,
    ])
    var heading = title("update \(updateId) of app \(source.appId)")
    if let entry {
      heading +=
        "configured for \(entry.platform.rawValue): target version \(entry.latestVersion.text), "
        + "option \(entry.option.name)\n"
    }
    return [heading, actions.text, days.text, funnelTable.text].joined(separator: "\n")
  }

  /// The actions whose rate over impressions the reports give.
  private static let rated: [Action] = [.download, .later, .ignore]

  /// Shown for a figure that does not exist, such as a rate without impressions.
  private static let none = "—"

  /// A rate as a percentage with one decimal, e.g. `41.2%`.
  private static func percent(_ rate: Double?) -> String {
    guard let rate else { return none }
    return String(format: "%.1f%%", rate * 100)
  }

  /// What the tables cover: the report, its days and its test filter.
  private func title(_ subject: String) -> String {
    var text =
      "\(subject), \(Timestamp.formatDate(dayNumber: range.fromDay)) to "
      + Timestamp.formatDate(dayNumber: range.toDay)
    switch test {
    case .exclude: break
    case .include: text += ", test events included"
    case .only: text += ", test events only"
    }
    return text + "\n"
  }
}
