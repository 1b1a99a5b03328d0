import Foundation

/// Every subcommand, in the order `uptake --help` lists them.
let commands: [any Command.Type] = [
  AppsAddCommand.self, AppsListCommand.self, AppsRotateCommand.self, ExportCommand.self,
  ReportCommand.self, ImportCommand.self, UpdatesPutCommand.self, UpdatesGetCommand.self,
  UpdatesHistoryCommand.self,
  UpdatesStatusCommand.self, MigrateToClickHouseCommand.self,
]

/// A command's line in the overview: the summary in a column of its own,
/// under the name when the name is wider than the column.
func overviewLine(_ command: any Command.Type) -> String {
  let name = "  " + command.path.joined(separator: " ")
  let column = 19
  guard name.count < column else {
    return name + "\n" + String(repeating: " ", count: column) + command.summary
  }
  return name.padding(toLength: column, withPad: " ", startingAt: 0) + command.summary
}

let overview = """
  usage: uptake COMMAND [options]

  Uptake's command line: manage apps and keys, export CSV summaries, show
  reports, import events, load update configurations, move a one-box
  database into a ClickHouse cluster. Every command works on the database
  the daemon writes (--db PATH, env UPTAKE_DB, default ./uptake.db), safely
  while it runs, or in a cluster of nodes (--clickhouse URL[,URL...]).

  commands:
  \(commands.map(overviewLine).joined(separator: "\n"))

  Run `uptake COMMAND --help` for a command's options.
  Exit codes: 0 ok, 64 usage, 65 bad input data, 66 database or input file
  missing, 69 unavailable (locked, disk full), 74 I/O error.
  """

var output = CommandOutput(
  standardOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
  standardError: { FileHandle.standardError.write(Data($0.utf8)) })
exit(
  CommandRunner.run(
    Array(CommandLine.arguments.dropFirst()), commands: commands, overview: overview,
    output: &output))
