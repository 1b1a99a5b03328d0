import Foundation

/// Every subcommand, in the order `uptake --help` lists them.
let commands: [any Command.Type] = [
  AppsAddCommand.self, AppsListCommand.self, AppsRotateCommand.self, ExportCommand.self,
  ReportCommand.self, ImportCommand.self, UpdatesPutCommand.self, UpdatesGetCommand.self,
  UpdatesHistoryCommand.self,
  UpdatesStatusCommand.self,
]

let overview = """
  usage: uptake COMMAND [options]

  Uptake's command line: manage apps and keys, export CSV summaries, show
  reports, import events, load update configurations. Every command works on the database the daemon
  writes (--db PATH, env UPTAKE_DB, default ./uptake.db), safely while it
  runs.

  commands:
  \(commands.map { "  " + $0.path.joined(separator: " ").padding(toLength: 17, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

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
