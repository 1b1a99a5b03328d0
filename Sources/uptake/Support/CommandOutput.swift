/// Where a command writes: data to stdout, diagnostics to stderr.
struct CommandOutput {
  var standardOutput: (String) -> Void
  var standardError: (String) -> Void
}
