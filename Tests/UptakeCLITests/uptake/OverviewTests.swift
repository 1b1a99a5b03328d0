import Testing
import UptakeTestSupport

/// The overview is built by main.swift's top-level code, which a test
/// cannot call, so this asks the built program.
@Suite("uptake --help: the overview the built program prints")
struct OverviewTests {
  @Test("every command with its summary, then the exit codes")
  func overview() throws {
    let result = try uptake(["--help"])
    #expect(result.status == 0)
    #expect(result.standardError == "")
    #expect(
      result.standardOutput == """
        usage: uptake COMMAND [options]

        Uptake's command line: manage apps and keys, export CSV summaries, show
        reports, import events, load update configurations, move a one-box
        database into a ClickHouse cluster. Every command works on the database
        the daemon writes (--db PATH, env UPTAKE_DB, default ./uptake.db), safely
        while it runs, or in a cluster of nodes (--clickhouse URL[,URL...]).

        commands:
          apps add         create an app and print its keys (shown only once)
          apps list        list apps
          apps rotate      replace an app's ingest or read key
          export           write a CSV summary of an app's events
          report           show an app's updates, or one update, as tables
          import           load NDJSON events from a file or stdin
          updates put      load an app's update configuration (JSON) and make it live
          updates get      print an app's live update configuration
          updates history  list the versions of an app's update configuration
          updates status   show what the App Store serves in each watched country
          migrate-to-clickhouse
                           copy a one-box database into a ClickHouse cluster

        Run `uptake COMMAND --help` for a command's options.
        Exit codes: 0 ok, 64 usage, 65 bad input data, 66 database or input file
        missing, 69 unavailable (locked, disk full), 74 I/O error.

        """)
  }
}
