import Testing

@testable import uptake

@Suite("uptake import and updates put, get, history: their command lines")
struct InputCommandsTests {
  @Test("import --app APPID FILE|-")
  func importFileOrStdin() throws {
    let file = try ImportCommand(arguments: ["--app", "shop", "events.ndjson", "--db", "a.db"])
    #expect(file.input.appId == "shop")
    #expect(file.input.inputPath == "events.ndjson")
    #expect(file.input.databasePath == "a.db")
    #expect(try ImportCommand(arguments: ["-", "--app=shop"]).input.inputPath == "-")
    #expect(file.maxDistinctPerDay == 1000)
  }

  @Test("import --max-distinct-per-day N: 0 means the default; only import takes it")
  func importMaxDistinctPerDay() throws {
    let five = try ImportCommand(arguments: ["--app", "shop", "-", "--max-distinct-per-day", "5"])
    #expect(five.maxDistinctPerDay == 5)
    let zero = try ImportCommand(arguments: ["--app", "shop", "-", "--max-distinct-per-day=0"])
    #expect(zero.maxDistinctPerDay == 1000)
    for value in ["-1", "many", "1000001"] {
      #expect(
        refusal(ImportCommand.self, ["--app", "shop", "-", "--max-distinct-per-day", value])
          == .usage(
            "--max-distinct-per-day needs a whole number up to 1000000, not \"\(value)\""))
    }
    #expect(
      refusal(UpdatesPutCommand.self, ["--app", "shop", "-", "--max-distinct-per-day", "5"])
        == .usage("unknown option --max-distinct-per-day"))
  }

  @Test("updates put --app APPID FILE|-")
  func putFileOrStdin() throws {
    let file = try UpdatesPutCommand(arguments: ["updates.json", "--app", "shop"])
    #expect(file.input.appId == "shop")
    #expect(file.input.inputPath == "updates.json")
    #expect(try UpdatesPutCommand(arguments: ["--app", "shop", "--", "-"]).input.inputPath == "-")
  }

  @Test(
    "import and updates put read one input the same way, and refuse alike",
    arguments: [
      ([], "--app is required"),
      (["events.ndjson"], "--app is required"),
      (["--app", "shop"], "give exactly one FILE, or - for stdin"),
      (["--app", "shop", "a", "b"], "give exactly one FILE, or - for stdin"),
      (["--app", "shop", "a", "--json"], "unknown option --json"),
    ])
  func inputRefuses(arguments: [String], message: String) {
    #expect(refusal(ImportCommand.self, arguments) == .usage(message))
    #expect(refusal(UpdatesPutCommand.self, arguments) == .usage(message))
  }

  @Test("updates get --app APPID [--version N]")
  func get() throws {
    let live = try UpdatesGetCommand(arguments: ["--app", "shop"])
    #expect(live.appId == "shop")
    #expect(live.version == nil)
    #expect(try UpdatesGetCommand(arguments: ["--app", "shop", "--version", "3"]).version == 3)
  }

  @Test(
    "updates get refuses",
    arguments: [
      ([], "--app is required"),
      (["--app", "shop", "updates.json"], "unexpected argument updates.json"),
      (["--app", "shop", "--version", "0"], "--version: give a version number like 3"),
      (["--app", "shop", "--version", "-1"], "--version: give a version number like 3"),
      (["--app", "shop", "--version", "v3"], "--version: give a version number like 3"),
      (["--app", "shop", "--version"], "--version needs a value"),
    ])
  func getRefuses(arguments: [String], message: String) {
    #expect(refusal(UpdatesGetCommand.self, arguments) == .usage(message))
  }

  @Test("updates history|status --app APPID [--db PATH | --clickhouse URL[,URL...]]")
  func history() throws {
    let history = try UpdatesHistoryCommand(arguments: ["--app", "shop", "--db", "a.db"])
    #expect(history.arguments.appId == "shop")
    #expect(history.arguments.databasePath == "a.db")
    #expect(history.arguments.cluster == nil)
    #expect(try UpdatesStatusCommand(arguments: ["--app", "shop"]).arguments.appId == "shop")
    let cluster = ["--app", "shop", "--clickhouse", "http://a:8123", "--clickhouse-cluster", "c"]
    for parsed in [
      try UpdatesHistoryCommand(arguments: cluster).arguments,
      try UpdatesStatusCommand(arguments: cluster).arguments,
    ] {
      #expect(parsed.cluster?.servers.map(\.url.absoluteString) == ["http://a:8123"])
      #expect(parsed.cluster?.cluster == "c")
      #expect(parsed.cluster?.database == "uptake")
    }
  }

  @Test(
    "updates history refuses",
    arguments: [
      ([], "--app is required"),
      (["--app", "shop", "2"], "unexpected argument 2"),
      (["--app", "shop", "--version", "2"], "unknown option --version"),
    ])
  func historyRefuses(arguments: [String], message: String) {
    #expect(refusal(UpdatesHistoryCommand.self, arguments) == .usage(message))
  }
}
