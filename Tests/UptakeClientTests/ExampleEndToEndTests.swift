import Foundation
import Testing
import UptakeTestSupport

// The example a newcomer runs first: its help, and the whole loop against a
// real uptaked.

/// The whole help text, as a newcomer sees it.
private let usage = """
  usage: uptake-example [run|flush] --key INGEST_KEY [options]

  Plays an app that embeds UptakeClient: asks uptaked which update prompt to
  show, prints the prompt, picks what the user does, records the impression
  and the choice, and flushes the queue. Events that cannot be sent stay in
  the storage directory; `uptake-example flush` sends them later.

  commands:
    run                 check, show, record, flush (the default)
    flush               only send the events already queued

  options:
    --url URL           uptaked's address (default http://127.0.0.1:8080; env UPTAKE_URL)
    --key KEY           the app's ingest key (env UPTAKE_INGEST_KEY)
    --app-version V     the version of the app being played (default 1.0.0)
    --platform P        ios, ipados, macos, tvos, watchos, visionos, android, other (default ios)
    --os-version V      the device's OS version (default 17.4)
    --locale L          the user's language (default en)
    --action A          what the user does: download, later or ignore (default: random
                        among the prompt's buttons)
    --update-id ID      show this update when the check has no prompt (a server
                        without an update configuration yet)
    --storage DIR       the client's queue and install id (default ./uptake-example-data)
    --batch-size N      events per request, 1 to 1000 (default 500)
    -h, --help          this text

  exit status: 0 all sent, 64 usage error, 69 events left queued (server
  unreachable), 73 storage directory unusable

  """

@Suite("uptake-example plays an app against uptaked", .serialized, .timeLimit(.minutes(3)))
struct ExampleEndToEndTests {
  private func example(_ arguments: [String]) throws -> CommandResult {
    try run(BuiltProgram.path("uptake-example"), arguments)
  }

  @Test("--help prints the usage and exits 0; a usage error exits 64 with it")
  func help() throws {
    let help = try example(["--help"])
    #expect(help.status == 0)
    #expect(help.standardOutput == usage)
    let wrong = try example(["--key", "k", "--action", "impression"])
    #expect(wrong.status == 64)
    #expect(
      wrong.standardError
        == "uptake-example: --action: expected download, later or ignore, got impression\n\n"
        + usage)
    #expect(
      try example([]).standardError.hasPrefix(
        "uptake-example: --key (or UPTAKE_INGEST_KEY) is required\n")
    )
  }

  @Test("check, show, record, flush: uptaked stores the impression and the choice")
  func loop() throws {
    let scene = try DaemonScene()
    defer { scene.tearDown() }
    let daemon = scene.daemon
    let arguments = [
      "--url", daemon.baseURL.absoluteString, "--key", daemon.ingestKey, "--storage",
      scene.directory.appending("app").path, "--update-id", "example-1", "--action", "later",
    ]
    let run = try example(arguments)
    #expect(run.status == 0, "\(run.standardError)")
    let installId = try String(
      contentsOf: scene.directory.appending("app/install-id"), encoding: .utf8
    )
    .trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(
      run.standardOutput == """
        install \(installId), app 1.0.0 on ios
        check: no update; showing update example-1 as --update-id asks
        +-------------------------------+
        | A new version is available.   |
        | [download] [*later*] [ignore] |
        +-------------------------------+
        recorded impression of example-1
        recorded later of example-1
        flush: 1 request(s), 2 delivered, 0 duplicate(s), 0 refused, 0 still queued

        """)
    #expect(try daemon.events("example-1", "impression") == 1)
    #expect(try daemon.events("example-1", "later") == 1)

    // With uptaked gone the events stay queued (exit 69) until `flush`.
    daemon.stop()
    #expect(try example(arguments).status == 69)
    try daemon.restart(samePort: true)
    let flush = try example(["flush"] + arguments.prefix(6))
    #expect(flush.status == 0)
    #expect(
      flush.standardOutput
        == "flush: 1 request(s), 2 delivered, 0 duplicate(s), 0 refused, 0 still queued\n")
    #expect(try daemon.events("example-1", "impression") == 2)
  }
}
