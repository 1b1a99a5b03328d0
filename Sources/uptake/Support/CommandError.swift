import UptakeStore

/// A failed command, with the exit code the contract gives it.
struct CommandError: Error {
  let message: String
  let exitCode: Int32
  /// Usage errors print the command's help after the message.
  var showsHelp = false

  static func usage(_ message: String) -> CommandError {
    CommandError(message: message, exitCode: ExitCode.usage, showsHelp: true)
  }

  static func data(_ message: String) -> CommandError {
    CommandError(message: message, exitCode: ExitCode.dataError)
  }

  /// Maps a store failure: a busy or full database, or a cluster that
  /// cannot answer in full, is "unavailable", an unknown app is bad input,
  /// anything else an I/O error.
  static func store(_ error: StoreError) -> CommandError {
    if case .clusterUnavailable = error {
      return CommandError(message: error.description, exitCode: ExitCode.unavailable)
    }
    if error.isUnavailable {
      return CommandError(message: error.description, exitCode: ExitCode.unavailable)
    }
    switch error {
    case .notFound, .conflict:
      return CommandError(message: error.description, exitCode: ExitCode.dataError)
    default: return CommandError(message: error.description, exitCode: ExitCode.ioError)
    }
  }
}

extension CommandError {
  /// Maps a batch the writer could not store: storage that refuses writes
  /// (or a writer that stops) is "unavailable", anything else an I/O error.
  static func ingest(_ failure: IngestFailure) -> CommandError {
    switch failure {
    case .overloaded:
      return CommandError(message: "the writer is stopping", exitCode: ExitCode.unavailable)
    case .unavailable(let message):
      return CommandError(message: message, exitCode: ExitCode.unavailable)
    case .failed(let message):
      return CommandError(message: message, exitCode: ExitCode.ioError)
    }
  }
}
