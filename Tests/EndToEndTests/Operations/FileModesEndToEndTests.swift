import Foundation
import Testing
import UptakeTestSupport

/// Who may read the files Uptake writes: the database holds install ids and
/// key hashes, so what Uptake creates is its owner's alone, while a mode or
/// owner the operator chose stays as chosen.
@Suite("File modes: new database files 0600, an operator's modes kept", .timeLimit(.minutes(3)))
struct FileModesEndToEndTests {
  let days = Days()

  /// The permission bits of the file at `path`.
  private func mode(_ path: String) throws -> mode_t {
    var status = stat()
    try #require(stat(path, &status) == 0, "stat \(path): \(String(cString: strerror(errno)))")
    return status.st_mode & 0o777
  }

  private func owner(_ path: String) throws -> uid_t {
    var status = stat()
    try #require(stat(path, &status) == 0, "stat \(path): \(String(cString: strerror(errno)))")
    return status.st_uid
  }

  /// The modes of the database's files in `scratch`: the events file, its
  /// logs, the rollups file and its logs, whichever exist, by name.
  private func databaseFileModes(_ scratch: ScratchDirectory, _ name: String = "uptake.db")
    throws -> [String: mode_t]
  {
    var modes: [String: mode_t] = [:]
    for file in try FileManager.default.contentsOfDirectory(atPath: scratch.url.path)
    where file.hasPrefix(name) {
      modes[file] = try mode(scratch.path(file))
    }
    return modes
  }

  /// This process's umask, which the programs a test starts inherit.
  private func processUmask() throws -> mode_t {
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
    return try #require(
      mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
  }

  @Test("the daemon creates the database, its logs and the rollups file and logs 0600")
  func daemonCreatesPrivateFiles() throws {
    let fixture = try DaemonFixture()
    defer { fixture.tearDown() }
    try fixture.post([eventJSON(id: "1", installId: "i1")])
    _ = try fixture.events("u1")

    let modes = try databaseFileModes(fixture.scratch)
    let umask = String(try processUmask(), radix: 8)

    for file in ["uptake.db", "uptake.db-wal", "uptake.db-shm", "uptake.db-rollups"] {
      #expect(modes[file] != nil, "\(file) exists while the daemon runs")
    }
    #expect(
      modes.filter { $0.value != 0o600 }.isEmpty,
      "every file 0600, whatever the umask (\(umask)): \(modes.mapValues { String($0, radix: 8) })"
    )
  }

  @Test("uptake apps add creates a new database and its rollups file 0600")
  func commandLineCreatesPrivateFiles() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }

    let added = try uptake(["apps", "add", "shop", "--db", scratch.databasePath])
    let modes = try databaseFileModes(scratch)

    #expect(added.status == 0, "\(added.standardError)")
    #expect(modes["uptake.db"] != nil && modes["uptake.db-rollups"] != nil)
    #expect(
      modes.filter { $0.value != 0o600 }.isEmpty, "\(modes.mapValues { String($0, radix: 8) })")
  }

  @Test("an operator's group-readable database keeps its mode, and its logs and rollups follow")
  func existingModeKept() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let added = try uptake(["apps", "add", "default", "--db", scratch.databasePath])
    try #require(added.status == 0, "\(added.standardError)")
    // The events file (and its logs, if any are left) made group-readable,
    // and the rollups file gone, to be made again beside it.
    for (file, _) in try databaseFileModes(scratch) {
      if file.hasPrefix("uptake.db-rollups") {
        try FileManager.default.removeItem(atPath: scratch.path(file))
      } else {
        try #require(chmod(scratch.path(file), 0o640) == 0)
      }
    }

    let daemon = try Daemon(databasePath: scratch.databasePath, logPath: scratch.path("log"))
    defer { daemon.stop() }
    let modes = try databaseFileModes(scratch)

    for file in ["uptake.db", "uptake.db-wal", "uptake.db-shm", "uptake.db-rollups"] {
      #expect(modes[file] != nil, "\(file) exists while the daemon runs")
    }
    #expect(
      modes.filter { $0.value != 0o640 }.isEmpty, "\(modes.mapValues { String($0, radix: 8) })")
  }

  @Test(
    "export -o and --since-last keep an existing file's mode and owner; new files take the umask")
  func exportKeepsModes() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let added = try uptake(["apps", "add", "default", "--db", scratch.databasePath])
    try #require(added.status == 0, "\(added.standardError)")
    let private_ = scratch.path("private.csv")
    let shared = scratch.path("shared.csv")
    let state = scratch.path("export.state")
    let fresh = scratch.path("fresh.csv")
    for (path, mode) in [(private_, 0o600), (shared, 0o640), (state, 0o600)] as [(String, mode_t)] {
      try Data((path == state ? days.date(-3) + "\n" : "old\n").utf8)
        .write(to: URL(fileURLWithPath: path))
      try #require(chmod(path, mode) == 0)
    }
    // Only root may give a file away; then the export must give the new
    // file the old one's owner, or the user who read it could no longer.
    let someoneElse: uid_t = 65534
    let asRoot = geteuid() == 0
    if asRoot { try #require(chown(private_, someoneElse, gid_t(someoneElse)) == 0) }

    for path in [private_, shared, fresh] {
      let exported = try uptake(
        ["export", "--app", "default", "-o", path, "--db", scratch.databasePath])
      #expect(exported.status == 0, "\(exported.standardError)")
    }
    let sinceLast = try uptake([
      "export", "--app", "default", "--since-last", state, "-o", scratch.path("nightly.csv"),
      "--db", scratch.databasePath,
    ])

    #expect(sinceLast.status == 0, "\(sinceLast.standardError)")
    #expect(try String(contentsOfFile: state, encoding: .utf8) == days.date(-1) + "\n")
    #expect(try String(contentsOfFile: private_, encoding: .utf8).hasPrefix("date,"))
    #expect(try mode(private_) == 0o600)
    #expect(try mode(shared) == 0o640)
    #expect(try mode(state) == 0o600)
    let umask = try processUmask()
    #expect(try mode(fresh) == 0o666 & ~umask)
    if asRoot { #expect(try owner(private_) == someoneElse) }
  }
}
