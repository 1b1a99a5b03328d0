import Foundation
import Testing
import UptakeTestSupport

@Suite("uptake CLI beside a running daemon", .timeLimit(.minutes(3)))
struct CLIEndToEndTests {
  let days = Days()

  /// The JSON `apps add --json` prints: exactly appId, ingestKey, readKey.
  private func addApp(_ appId: String, db: String) throws -> (ingestKey: String, readKey: String) {
    let result = try uptake(["apps", "add", appId, "--json", "--db", db])
    try #require(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput.hasSuffix("}\n"))
    #expect(result.standardOutput.split(separator: "\n").count == 1, "exactly one JSON object")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: String])
    #expect(Set(object.keys) == ["appId", "ingestKey", "readKey"])
    #expect(object["appId"] == appId)
    return (try #require(object["ingestKey"]), try #require(object["readKey"]))
  }

  @Test("an app added with `apps add --json` while the daemon runs can post and read at once")
  func appAddedWhileRunning() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()

    let shop = try addApp("shop", db: fixture.databasePath)
    let posted = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: shop.ingestKey, batchJSON([eventJSON(id: "s1")]))
    let report = try client.get(fixture.daemon.url("/v1/updates?format=csv"), key: shop.readKey)

    #expect(posted.status == 200)
    #expect(posted.text == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)
    #expect(report.text.hasSuffix(",1,0,0,0,,,,\r\n"))
  }

  @Test(
    "the daemon keeps storing events after the CLI wrote to the database")
  func ingestAfterCLIWrite() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let client = HTTPClient()
    let before = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON([eventJSON(id: "d1")]))
    try #require(before.status == 200)

    let shop = try addApp("shop", db: fixture.databasePath)
    let fromShop = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: shop.ingestKey, batchJSON([eventJSON(id: "s1")]))
    let fromDefault = try client.postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON([eventJSON(id: "d2")]))
    let ready = try client.get(fixture.daemon.url("/readyz"))

    #expect(fromShop.text == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)
    #expect(fromDefault.text == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)
    #expect(ready.status == 200)
  }

  /// Posts the events the export tests count, on the two days before today.
  private func postExportEvents(_ fixture: DaemonFixture) throws {
    let events = [
      eventJSON(
        id: "1", action: "impression", installId: "i1", timestamp: days.time(-2, "10:00:00")),
      eventJSON(
        id: "2", action: "impression", installId: "i2", timestamp: days.time(-2, "11:00:00")),
      eventJSON(id: "3", action: "download", installId: "i1", timestamp: days.time(-2, "12:00:00")),
      eventJSON(id: "4", action: "later", installId: "i2", timestamp: days.time(-1, "09:00:00")),
      eventJSON(id: "5", action: "impression", timestamp: days.time(-1, "10:00:00")),
      eventJSON(
        id: "6", action: "impression", installId: "i3", timestamp: days.time(-1, "11:00:00"),
        test: true),
      eventJSON(
        id: "7", updateId: "u2", action: "ignore", installId: "i1",
        timestamp: days.time(-1, "12:00:00")),
    ]
    let posted = try HTTPClient().postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON(events))
    try #require(posted.text == #"{"accepted":7,"duplicates":0,"rejected":[]}"#)
  }

  private var expectedDefaultExport: String {
    "date,update_id,action,events,installs\r\n"
      + "\(days.date(-2)),u1,download,1,1\r\n"
      + "\(days.date(-2)),u1,impression,2,2\r\n"
      + "\(days.date(-1)),u1,impression,1,0\r\n"
      + "\(days.date(-1)),u1,later,1,1\r\n"
      + "\(days.date(-1)),u2,ignore,1,1\r\n"
  }

  @Test("export: CSV by date, update and action, CRLF rows, read while the daemon runs")
  func export() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    try postExportEvents(fixture)

    let result = try uptake(["export", "--app", "default", "--db", fixture.databasePath])

    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput == expectedDefaultExport)
  }

  @Test("export: --group-by, --test and --from/--to choose the columns and rows")
  func exportOptions() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    try postExportEvents(fixture)

    let result = try uptake([
      "export", "--app", "default", "--group-by", "action,updateId", "--test", "include",
      "--from", days.date(-1), "--to", days.date(-1), "--db", fixture.databasePath,
    ])

    #expect(result.status == 0, "\(result.standardError)")
    #expect(
      result.standardOutput
        == "action,update_id,events,installs\r\n"
        + "ignore,u2,1,1\r\n"
        + "impression,u1,2,1\r\n"
        + "later,u1,1,1\r\n")
  }

  @Test("export: cells a spreadsheet would run are neutralised, cells with commas quoted")
  func exportNeutralisesFormulas() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let events = [
      eventJSON(id: "1", updateId: "-1", appVersion: "=1+2", timestamp: days.time(-1, "10:00:00")),
      eventJSON(id: "2", updateId: "u1", appVersion: "1,5", timestamp: days.time(-1, "10:00:00")),
    ]
    _ = try HTTPClient().postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON(events))

    let result = try uptake([
      "export", "--app", "default", "--group-by", "updateId,appVersion", "--db",
      fixture.databasePath,
    ])

    #expect(
      result.standardOutput
        == "update_id,app_version,events,installs\r\n"
        + "'-1,'=1+2,1,0\r\n"
        + "u1,\"1,5\",1,0\r\n")
  }

  @Test(
    "export and format=csv: a formula behind leading whitespace or in full-width form is neutralised"
  )
  func exportNeutralisesHiddenFormulas() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let versions = ["1.0.0", " =1+2", "\u{A0}@SUM(A1)", "\u{3000}＋1", "＝HYPERLINK(1)"]
    let events = versions.enumerated().map { index, version in
      eventJSON(id: "\(index)", appVersion: version, timestamp: days.time(-1, "10:00:00"))
    }
    try fixture.post(events)

    let exported = try uptake([
      "export", "--app", "default", "--group-by", "appVersion", "--db", fixture.databasePath,
    ])
    let served = try fixture.report("/v1/report?groupBy=appVersion&format=csv")

    let rows =
      "1.0.0,1,0\r\n" + "' =1+2,1,0\r\n" + "'\u{A0}@SUM(A1),1,0\r\n" + "'\u{3000}＋1,1,0\r\n"
      + "'＝HYPERLINK(1),1,0\r\n"
    #expect(exported.status == 0, "\(exported.standardError)")
    #expect(exported.standardOutput == "app_version,events,installs\r\n" + rows)
    #expect(served.status == 200)
    #expect(served.text == "appVersion,events,installs\r\n" + rows)
  }

  @Test("export -o FILE writes the CSV to the file and nothing to stdout")
  func exportToFile() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    try postExportEvents(fixture)
    let file = fixture.scratch.path("export.csv")

    let result = try uptake([
      "export", "--app", "default", "-o", file, "--db", fixture.databasePath,
    ])

    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput == "")
    #expect(try String(contentsOfFile: file, encoding: .utf8) == expectedDefaultExport)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.scratch.url.path)
      .filter { $0.contains(".tmp") }
    #expect(leftovers == [], "no temporary file left behind")
  }

  @Test("export --since-last: the first run exports the days before today and records the last")
  func exportSinceLast() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let events = [
      eventJSON(id: "y1", installId: "i1", timestamp: days.time(-1, "10:00:00")),
      eventJSON(id: "y2", action: "later", installId: "i1", timestamp: days.time(-1, "23:59:59")),
      eventJSON(id: "t1", installId: "i2", timestamp: days.time(0, "00:00:00")),
    ]
    _ = try HTTPClient().postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey, batchJSON(events))
    let state = fixture.scratch.path("export.state")
    let arguments = [
      "export", "--app", "default", "--since-last", state, "--db", fixture.databasePath,
    ]

    let first = try uptake(arguments)
    let recorded = try String(contentsOfFile: state, encoding: .utf8)
    let second = try uptake(arguments)

    #expect(first.status == 0, "\(first.standardError)")
    #expect(
      first.standardOutput
        == "date,update_id,action,events,installs\r\n"
        + "\(days.date(-1)),u1,impression,1,1\r\n"
        + "\(days.date(-1)),u1,later,1,1\r\n")
    #expect(recorded == "\(days.date(-1))\n")
    #expect(second.status == 0, "\(second.standardError)")
    #expect(second.standardOutput == "date,update_id,action,events,installs\r\n")
    #expect(try String(contentsOfFile: state, encoding: .utf8) == recorded)
  }

  @Test("exit codes: 64 usage, 65 unknown app, 66 missing database")
  func exitCodes() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    let missing = fixture.scratch.path("missing.db")

    let unknownOption = try uptake([
      "export", "--app", "default", "--bogus", "--db", fixture.databasePath,
    ])
    let noApp = try uptake(["export", "--db", fixture.databasePath])
    let unknownCommand = try uptake(["frobnicate"])
    let unknownApp = try uptake(["export", "--app", "nope", "--db", fixture.databasePath])
    let duplicateApp = try uptake(["apps", "add", "default", "--db", fixture.databasePath])
    let missingDatabase = try uptake(["export", "--app", "default", "--db", missing])
    let missingForList = try uptake(["apps", "list", "--db", missing])

    #expect(unknownOption.status == 64)
    #expect(unknownOption.standardError.contains("unknown option --bogus"))
    #expect(unknownOption.standardOutput == "")
    #expect(noApp.status == 64)
    #expect(unknownCommand.status == 64)
    #expect(unknownApp.status == 65)
    #expect(unknownApp.standardOutput == "")
    #expect(duplicateApp.status == 65)
    #expect(missingDatabase.status == 66)
    #expect(missingForList.status == 66)
    #expect(!FileManager.default.fileExists(atPath: missing), "a mistyped --db creates nothing")
  }
}
