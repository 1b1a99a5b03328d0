import Testing
import UptakeCore

@testable import uptake

@Suite("uptake apps add, list, rotate: their command lines")
struct AppsCommandsTests {
  @Test("apps add APPID [--json] [--db PATH]")
  func add() throws {
    let plain = try AppsAddCommand(arguments: ["shop"])
    #expect(plain.appId == "shop")
    #expect(!plain.json)

    let full = try AppsAddCommand(arguments: ["--db", "a.db", "--json", "shop-2"])
    #expect(full.appId == "shop-2")
    #expect(full.json)
    #expect(full.databasePath == "a.db")
  }

  @Test(
    "apps add refuses",
    arguments: [
      ([], "give exactly one APPID"),
      (["shop", "news"], "give exactly one APPID"),
      (
        ["Shop"],
        #"invalid APPID "Shop": use 1-63 of a-z, 0-9 and -, starting with a letter or digit"#
      ),
      (
        ["-", "--db", "a.db"],
        #"invalid APPID "-": use 1-63 of a-z, 0-9 and -, starting with a letter or digit"#
      ),
      (["shop", "--read"], "unknown option --read"),
      (["shop", "--db"], "--db needs a value"),
    ])
  func addRefuses(arguments: [String], message: String) {
    #expect(refusal(AppsAddCommand.self, arguments) == .usage(message))
  }

  @Test("apps list [--json] [--db PATH]")
  func list() throws {
    #expect(!(try AppsListCommand(arguments: [])).json)
    let json = try AppsListCommand(arguments: ["--json", "--db=a.db"])
    #expect(json.json)
    #expect(json.databasePath == "a.db")
  }

  @Test(
    "apps list refuses",
    arguments: [
      (["shop"], "unexpected argument shop"),
      (["--app", "shop"], "unknown option --app"),
    ])
  func listRefuses(arguments: [String], message: String) {
    #expect(refusal(AppsListCommand.self, arguments) == .usage(message))
  }

  @Test("apps rotate APPID --ingest|--read [--json] [--db PATH]")
  func rotate() throws {
    let ingest = try AppsRotateCommand(arguments: ["shop", "--ingest"])
    #expect(ingest.appId == "shop")
    #expect(ingest.kind == .ingest)
    #expect(!ingest.json)

    let read = try AppsRotateCommand(arguments: ["--read", "--json", "shop", "--db", "a.db"])
    #expect(read.kind == .read)
    #expect(read.json)
    #expect(read.databasePath == "a.db")
  }

  @Test(
    "apps rotate refuses",
    arguments: [
      (["shop"], "give exactly one of --ingest and --read"),
      (["shop", "--ingest", "--read"], "give exactly one of --ingest and --read"),
      (["--ingest"], "give exactly one APPID"),
      (["shop", "news", "--read"], "give exactly one APPID"),
      (["shop", "--write"], "unknown option --write"),
    ])
  func rotateRefuses(arguments: [String], message: String) {
    #expect(refusal(AppsRotateCommand.self, arguments) == .usage(message))
  }
}
