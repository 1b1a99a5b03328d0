import Foundation
import Testing
import UptakeTestSupport

@Suite("uptake import: NDJSON events with ingest's rules", .timeLimit(.minutes(3)))
struct ImportEndToEndTests {
  let days = Days()

  /// A scratch directory with a database holding the app `default`.
  private func withDatabase(_ body: (ScratchDirectory) throws -> Void) throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let added = try uptake(["apps", "add", "default", "--json", "--db", scratch.databasePath])
    try #require(added.status == 0, "\(added.standardError)")
    try body(scratch)
  }

  private func write(_ text: String, to path: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
  }

  @Test("counts accepted, duplicate and rejected lines; blank lines are skipped")
  func counts() throws {
    try withDatabase { (scratch) throws in
      let file = scratch.path("events.ndjson")
      try write(
        [
          eventJSON(id: "a1", installId: "i1", timestamp: days.time(-1, "10:00:00")),
          eventJSON(id: "a2", action: "download", installId: "i1"),
          "",
          "not json",
          eventJSON(id: "a1", installId: "i1", timestamp: days.time(-1, "10:00:00")),
          eventJSON(id: "a3", action: "clicked"),
          eventJSON(action: "later", installId: "i2"),
          "   \t",
          #"{"id":"a4","updateId":782000001589015,"action":"ignore","appVersion":"2.0"}"#,
          "[1,2]",
        ].joined(separator: "\n") + "\n", to: file)
      let arguments = ["import", "--app", "default", file, "--db", scratch.databasePath]

      let first = try uptake(arguments)
      let again = try uptake(arguments)

      #expect(first.status == 0, "\(first.standardError)")
      #expect(first.standardOutput == "accepted 4, duplicates 1, rejected 3\n")
      let rejections = first.standardError.split(separator: "\n").map(String.init)
      #expect(rejections.count == 3, "\(first.standardError)")
      #expect(rejections.first?.hasPrefix("line 4: not JSON: ") == true, "\(rejections)")
      #expect(rejections.dropFirst().first == #"line 6: action: unknown value "clicked""#)
      #expect(rejections.last == "line 10: event: not an object")
      // Events with an id are stored once; the one without an id cannot be
      // recognised, exactly as on ingest.
      #expect(again.status == 0, "\(again.standardError)")
      #expect(again.standardOutput == "accepted 1, duplicates 4, rejected 3\n")
    }
  }

  @Test("importing a file twice stores it once, across transactions of 5000 events")
  func reimportIsAllDuplicates() throws {
    try withDatabase { (scratch) throws in
      let file = scratch.path("events.ndjson")
      // Long enough to span several transactions and several 1 MiB reads.
      let lines = (0..<12_345).map { index in
        eventJSON(
          id: "event-\(index)-\(String(repeating: "x", count: 40))", updateId: "u\(index % 3)",
          action: index % 2 == 0 ? "impression" : "later", installId: "install-\(index % 500)",
          platform: "ios", osVersion: "17.4")
      }
      try write(lines.joined(separator: "\n") + "\n", to: file)
      let arguments = ["import", "--app", "default", file, "--db", scratch.databasePath]

      let first = try uptake(arguments)
      // Every connection is closed before the process exits: no log files
      // are left behind for the next opening to clean up.
      for file in [scratch.databasePath, scratch.databasePath + "-rollups"] {
        for suffix in ["-wal", "-shm"] {
          #expect(!FileManager.default.fileExists(atPath: file + suffix), "\(file)\(suffix) left")
        }
      }
      let again = try uptake(arguments)
      let export = try uptake([
        "export", "--app", "default", "--group-by", "updateId", "--db", scratch.databasePath,
      ])

      #expect(first.status == 0, "\(first.standardError)")
      #expect(first.standardOutput == "accepted 12345, duplicates 0, rejected 0\n")
      #expect(first.standardError == "", "no progress when stderr is not a terminal")
      #expect(again.standardOutput == "accepted 0, duplicates 12345, rejected 0\n")
      #expect(
        export.standardOutput
          == "update_id,events,installs\r\n" + "u0,4115,500\r\n" + "u1,4115,500\r\n"
          + "u2,4115,500\r\n")
    }
  }

  @Test("reads stdin with -; CRLF line ends, a last line without one, a BOM are fine")
  func standardInput() throws {
    try withDatabase { (scratch) throws in
      let input =
        "\u{FEFF}" + eventJSON(id: "s1") + "\r\n" + eventJSON(id: "s2") + "\r\n\r\n"
        + eventJSON(id: "s3")

      let result = try uptake(
        ["import", "--app", "default", "-", "--db", scratch.databasePath], input: Data(input.utf8))

      #expect(result.status == 0, "\(result.standardError)")
      #expect(result.standardOutput == "accepted 3, duplicates 0, rejected 0\n")
      #expect(result.standardError == "")
    }
  }

  @Test("a line over 32 KiB is rejected alone, and the lines after it are read")
  func overlongLine() throws {
    try withDatabase { (scratch) throws in
      let file = scratch.path("events.ndjson")
      let huge = eventJSON(id: "huge", installId: String(repeating: "h", count: 40_000))
      try write(
        [eventJSON(id: "l1"), huge, eventJSON(id: "l3")].joined(separator: "\n"),
        to: file)

      let result = try uptake(["import", "--app", "default", file, "--db", scratch.databasePath])

      #expect(result.status == 0, "\(result.standardError)")
      #expect(result.standardOutput == "accepted 2, duplicates 0, rejected 1\n")
      #expect(result.standardError == "line 2: event: over 32 KiB\n")
    }
  }

  @Test("only the first 10 rejections are shown, then how many more there were")
  func manyRejections() throws {
    try withDatabase { (scratch) throws in
      let file = scratch.path("events.ndjson")
      let lines = (1...25).map { eventJSON(id: "r\($0)", appVersion: $0 == 7 ? "1.0" : "") }
      try write(lines.joined(separator: "\n") + "\n", to: file)

      let result = try uptake(["import", "--app", "default", file, "--db", scratch.databasePath])

      #expect(result.status == 0)
      #expect(result.standardOutput == "accepted 1, duplicates 0, rejected 24\n")
      let expected =
        [1, 2, 3, 4, 5, 6, 8, 9, 10, 11].map {
          "line \($0): appVersion: must be 1 to 32 characters\n"
        }.joined() + "(14 more rejected lines not shown)\n"
      #expect(result.standardError == expected)
    }
  }

  @Test("old and future timestamps are rejected as on ingest; the time of import is 'received'")
  func timestampRules() throws {
    try withDatabase { (scratch) throws in
      let file = scratch.path("events.ndjson")
      try write(
        [
          eventJSON(id: "t1", timestamp: days.time(-89, "12:00:00")),
          eventJSON(id: "t2", timestamp: days.time(-91, "12:00:00")),
          eventJSON(id: "t3", timestamp: days.time(2, "12:00:00")),
          eventJSON(id: "t4", timestamp: "yesterday"),
        ].joined(separator: "\n") + "\n", to: file)

      let result = try uptake(["import", "--app", "default", file, "--db", scratch.databasePath])

      #expect(result.standardOutput == "accepted 1, duplicates 0, rejected 3\n")
      #expect(
        result.standardError
          == "line 2: timestamp: older than 90 days\n"
          + "line 3: timestamp: more than 10 minutes in the future\n"
          + "line 4: timestamp: must be an RFC 3339 date-time with an offset, like 2026-11-29T17:30:15Z\n"
      )
    }
  }

  @Test("events imported beside a running daemon show in its reports")
  func besideTheDaemon() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    try fixture.post([
      eventJSON(id: "posted", installId: "i1", timestamp: days.time(-1, "08:00:00"))
    ])
    let file = fixture.scratch.path("events.ndjson")
    try write(
      [
        eventJSON(id: "posted", installId: "i1", timestamp: days.time(-1, "08:00:00")),
        eventJSON(
          id: "imported", action: "download", installId: "i1", timestamp: days.time(-1, "09:00:00")),
      ].joined(separator: "\n") + "\n", to: file)

    let result = try uptake(["import", "--app", "default", file, "--db", fixture.databasePath])
    let report = try fixture.report(
      "/v1/report?from=\(days.date(-1))&to=\(days.date(-1))&groupBy=action&format=csv")
    let afterwards = try HTTPClient().postJSON(
      fixture.daemon.url("/v1/events"), key: fixture.ingestKey,
      batchJSON([eventJSON(id: "imported"), eventJSON(id: "new")]))

    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput == "accepted 1, duplicates 1, rejected 0\n")
    #expect(report.text == "action,events,installs\r\ndownload,1,1\r\nimpression,1,1\r\n")
    #expect(
      afterwards.text == #"{"accepted":1,"duplicates":1,"rejected":[]}"#,
      "the daemon knows the imported ids")
  }

  @Test("exit codes: 64 usage, 65 unknown app, 66 missing file or database")
  func exitCodes() throws {
    try withDatabase { (scratch) throws in
      let file = scratch.path("events.ndjson")
      try write(eventJSON(id: "x") + "\n", to: file)
      let db = scratch.databasePath

      let unknownApp = try uptake(["import", "--app", "nope", file, "--db", db])
      let missingFile = try uptake([
        "import", "--app", "default", scratch.path("nope.ndjson"), "--db", db,
      ])
      let directory = try uptake(["import", "--app", "default", scratch.url.path, "--db", db])
      let missingDatabase = try uptake([
        "import", "--app", "default", file, "--db", scratch.path("missing.db"),
      ])
      let noFile = try uptake(["import", "--app", "default", "--db", db])
      let twoFiles = try uptake(["import", "--app", "default", file, file, "--db", db])
      let noApp = try uptake(["import", file, "--db", db])

      #expect(unknownApp.status == 65)
      #expect(unknownApp.standardOutput == "")
      #expect(unknownApp.standardError.contains("no app \"nope\""))
      #expect(missingFile.status == 66)
      #expect(missingFile.standardError.contains("nope.ndjson"))
      #expect(directory.status == 66)
      #expect(missingDatabase.status == 66)
      #expect(noFile.status == 64)
      #expect(twoFiles.status == 64)
      #expect(noApp.status == 64)
      #expect(noApp.standardError.contains("usage: uptake import --app APPID FILE|-"))
      let stored = try uptake(["export", "--app", "default", "--group-by", "action", "--db", db])
      #expect(stored.standardOutput == "action,events,installs\r\n", "nothing was imported")
    }
  }
}
