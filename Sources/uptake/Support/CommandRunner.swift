/// Picks the subcommand from the leading words, handles --help, runs it, and
/// turns its failure into a message and an exit code.
enum CommandRunner {
  static func run(
    _ arguments: [String], commands: [any Command.Type], overview: String,
    output: inout CommandOutput
  ) -> Int32 {
    if arguments.isEmpty || arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"]
    {
      output.standardOutput(overview + "\n")
      return arguments.isEmpty ? ExitCode.usage : ExitCode.ok
    }
    // `uptake apps --help` (or just `uptake apps`) names a group of commands,
    // not one: list the group's usage lines rather than call it unknown.
    let group = commands.filter { $0.path.count > 1 && $0.path[0] == arguments[0] }
    let asksHelp = arguments.count == 2 && (arguments[1] == "--help" || arguments[1] == "-h")
    if !group.isEmpty && (arguments.count == 1 || asksHelp) {
      let usages = group.map { $0.help.prefix { $0 != "\n" } }.joined(separator: "\n")
      let text =
        "\(usages)\n\nRun `uptake \(arguments[0]) COMMAND --help` for one command's options.\n"
      if asksHelp {
        output.standardOutput(text)
        return ExitCode.ok
      }
      output.standardError(text)
      return ExitCode.usage
    }
    let matching = commands.filter { Array(arguments.prefix($0.path.count)) == $0.path }
    guard let command = matching.max(by: { $0.path.count < $1.path.count }) else {
      output.standardError(
        "uptake: unknown command \"\(arguments.prefix(2).joined(separator: " "))\"\n\n\(overview)\n"
      )
      return ExitCode.usage
    }
    let rest = Array(arguments.dropFirst(command.path.count))
    if rest.contains("--help") || rest.contains("-h") {
      output.standardOutput(command.help + "\n")
      return ExitCode.ok
    }
    do {
      let instance = try command.init(arguments: rest)
      try instance.run(&output)
      return ExitCode.ok
    } catch {
      output.standardError("uptake \(command.path.joined(separator: " ")): \(error.message)\n")
      if error.showsHelp { output.standardError("\n" + command.help + "\n") }
      return error.exitCode
    }
  }
}
