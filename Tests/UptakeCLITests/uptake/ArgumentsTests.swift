import Foundation
import Testing

@testable import uptake

@Suite("Arguments: flags with values, boolean flags and positionals, in any order")
struct ArgumentsTests {
  private func parse(_ arguments: [String]) throws(CommandError) -> Arguments {
    try Arguments(arguments, valueFlags: ["--app", "--db", "-o"], booleanFlags: ["--json"])
  }

  @Test("a value follows its flag or is joined to it with =")
  func values() throws {
    let parsed = try parse(["--app", "shop", "--db=data/a=b.db", "-o", "out.csv"])
    #expect(parsed.value("--app") == "shop")
    #expect(parsed.value("--db") == "data/a=b.db", "only the first = splits")
    #expect(parsed.value("-o") == "out.csv")
    #expect(parsed.value("--json") == nil)
    #expect(parsed.positionals == [])
  }

  @Test("a flag given twice keeps its last value")
  func lastValueWins() throws {
    #expect(try parse(["--app", "one", "--app=two"]).value("--app") == "two")
  }

  @Test("a value may start with a dash or be empty")
  func dashAndEmptyValues() throws {
    let parsed = try parse(["--app", "-shop", "--db="])
    #expect(parsed.value("--app") == "-shop")
    #expect(parsed.value("--db") == "")
  }

  @Test("a boolean flag is there or not")
  func booleans() throws {
    #expect(try parse(["--json"]).has("--json"))
    #expect(!(try parse([]).has("--json")))
    #expect(!(try parse(["--app", "--json"]).has("--json")), "taken as --app's value")
  }

  @Test("positionals keep their order among the flags; a lone - is one")
  func positionals() throws {
    let parsed = try parse(["first", "--json", "-", "--app", "shop", "last"])
    #expect(parsed.positionals == ["first", "-", "last"])
    #expect(parsed.has("--json"))
    #expect(parsed.value("--app") == "shop")
  }

  @Test("after --, everything is a positional")
  func doubleDash() throws {
    let parsed = try parse(["--json", "--", "--app", "-x", "--"])
    #expect(parsed.positionals == ["--app", "-x", "--"])
    #expect(parsed.value("--app") == nil)
  }

  @Test(
    "refused: a value flag at the end, an unknown flag, a boolean flag with a value",
    arguments: [
      (["--app"], "--app needs a value"),
      (["shop", "--db"], "--db needs a value"),
      (["--db=x", "-o"], "-o needs a value"),
      (["--nope"], "unknown option --nope"),
      (["--nope=1"], "unknown option --nope"),
      (["-x"], "unknown option -x"),
      (["--json=yes"], "unknown option --json"),
      (["--APP", "shop"], "unknown option --APP"),
    ])
  func refused(arguments: [String], message: String) {
    #expect(refusal { () throws(CommandError) in try parse(arguments) } == .usage(message))
  }

  @Test("--db names the database")
  func databaseFromFlag() throws {
    #expect(try parse(["--db", "/data/uptake.db"]).databasePath == "/data/uptake.db")
  }

  @Test(
    "without --db, ./uptake.db",
    .enabled(if: ProcessInfo.processInfo.environment["UPTAKE_DB"] == nil, "UPTAKE_DB is set"))
  func defaultDatabase() throws {
    #expect(try parse([]).databasePath == "./uptake.db")
  }
}
