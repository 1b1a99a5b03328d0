import Testing
import UptakeTestSupport

@testable import uptake

/// The subcommands as `uptake` lists them; main.swift's own list is top-level
/// code, which a test cannot read, so `uptake --help` is checked on the
/// built program instead.
private var commands: [any Command.Type] {
  [
    AppsAddCommand.self, AppsListCommand.self, AppsRotateCommand.self, ExportCommand.self,
    ReportCommand.self, ImportCommand.self, UpdatesPutCommand.self, UpdatesGetCommand.self,
    UpdatesHistoryCommand.self, UpdatesStatusCommand.self,
  ]
}

/// What a command line printed through CommandRunner, and its exit code.
private struct Outcome {
  let status: Int32
  let standardOutput: String
  let standardError: String
}

/// Runs `arguments` through CommandRunner, with "OVERVIEW" for the overview.
private func commandLine(_ arguments: [String]) -> Outcome {
  final class Printed {
    var standardOutput = ""
    var standardError = ""
  }
  let printed = Printed()
  var output = CommandOutput(
    standardOutput: { printed.standardOutput += $0 },
    standardError: { printed.standardError += $0 })
  let status = CommandRunner.run(
    arguments, commands: commands, overview: "OVERVIEW", output: &output)
  return Outcome(
    status: status, standardOutput: printed.standardOutput,
    standardError: printed.standardError)
}

@Suite("uptake: choosing the command, help, and exit codes")
struct CommandRunnerTests {
  @Test("--help, -h and help print the overview and exit 0", arguments: ["--help", "-h", "help"])
  func overview(flag: String) {
    let outcome = commandLine([flag])
    #expect(outcome.status == 0)
    #expect(outcome.standardOutput == "OVERVIEW\n")
    #expect(outcome.standardError == "")
  }

  @Test("no command at all prints the overview and exits 64")
  func noCommand() {
    let outcome = commandLine([])
    #expect(outcome.status == 64)
    #expect(outcome.standardOutput == "OVERVIEW\n")
  }

  @Test("an unknown command is a usage error, with the overview on stderr")
  func unknownCommand() {
    let unknown = commandLine(["expert", "--app", "shop"])
    #expect(unknown.status == 64)
    #expect(unknown.standardOutput == "")
    #expect(unknown.standardError == "uptake: unknown command \"expert --app\"\n\nOVERVIEW\n")

    let unknownInGroup = commandLine(["apps", "remove", "shop"])
    #expect(unknownInGroup.status == 64)
    #expect(unknownInGroup.standardError == "uptake: unknown command \"apps remove\"\n\nOVERVIEW\n")
  }

  @Test("a group's name alone lists its commands: on stderr with 64, after --help on stdout")
  func group() {
    let text = """
      usage: uptake apps add APPID [--json] [--db PATH | --clickhouse URL[,URL...]]
      usage: uptake apps list [--json] [--db PATH | --clickhouse URL[,URL...]]
      usage: uptake apps rotate APPID --ingest|--read [--json] [--db PATH | --clickhouse URL[,URL...]]

      Run `uptake apps COMMAND --help` for one command's options.

      """
    let alone = commandLine(["apps"])
    #expect(alone.status == 64)
    #expect(alone.standardOutput == "")
    #expect(alone.standardError == text)

    let help = commandLine(["apps", "--help"])
    #expect(help.status == 0)
    #expect(help.standardOutput == text)
    #expect(help.standardError == "")
  }

  @Test("--help or -h anywhere after a command prints its help and runs nothing")
  func commandHelp() {
    for command in commands {
      for flag in ["--help", "-h"] {
        let outcome = commandLine(command.path + ["--app", "shop", flag])
        #expect(outcome.status == 0, "\(command.path) \(flag)")
        #expect(outcome.standardOutput == command.help + "\n", "\(command.path) \(flag)")
        #expect(outcome.standardError == "")
      }
    }
  }

  @Test("a usage error exits 64 with the message, then the command's help, on stderr")
  func usageError() {
    let outcome = commandLine(["apps", "add", "Shop"])
    #expect(outcome.status == 64)
    #expect(outcome.standardOutput == "")
    #expect(
      outcome.standardError == """
        uptake apps add: invalid APPID "Shop": use 1-63 of a-z, 0-9 and -, starting with a letter or digit

        usage: uptake apps add APPID [--json] [--db PATH | --clickhouse URL[,URL...]]

        Creates an app with a fresh ingest key (ships inside the mobile app, can
        only post events) and read key (secret, reads reports), and prints both.
        They are stored only as hashes: this is the one time they are shown.
        Creates the database when it does not exist yet. With --clickhouse the
        app is made in the cluster, and every node takes it within seconds.

        options:
          --json      print exactly one JSON object {"appId", "ingestKey", "readKey"}
          --db PATH   SQLite file (env UPTAKE_DB, default ./uptake.db)
          --clickhouse URL[,URL...]
                      work in the ClickHouse cluster of uptaked nodes, at these
                      servers (http://HOST:PORT), instead of in --db
                      (env UPTAKE_CLICKHOUSE)
          --clickhouse-database NAME
                      its database (env UPTAKE_CLICKHOUSE_DATABASE, default uptake)
          --clickhouse-cluster NAME
                      its cluster in remote_servers (env UPTAKE_CLICKHOUSE_CLUSTER)

        """)
  }

  @Test("every command's usage error exits 64 and shows that command's help")
  func usageErrorOfEveryCommand() {
    for command in commands {
      let outcome = commandLine(command.path + ["--nope"])
      #expect(outcome.status == 64, "\(command.path)")
      let name = command.path.joined(separator: " ")
      #expect(
        outcome.standardError == "uptake \(name): unknown option --nope\n\n\(command.help)\n")
    }
  }

  @Test("a failure past the parse has its own exit code and no help: a missing database is 66")
  func missingDatabase() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let outcome = commandLine(["apps", "list", "--db", scratch.databasePath])
    #expect(outcome.status == 66)
    #expect(outcome.standardOutput == "")
    #expect(
      outcome.standardError == "uptake apps list: database \(scratch.databasePath) does not exist\n"
    )
  }
}
