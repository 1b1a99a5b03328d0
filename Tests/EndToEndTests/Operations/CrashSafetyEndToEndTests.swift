import Foundation
import Testing
import UptakeTestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// Crash safety, proven: "a 200 on ingest means committed" must hold when the
// daemon dies at any moment, not only at an orderly stop. Each round, 8
// clients post batches while uptaked is killed with SIGKILL at a random
// moment; after a restart on the same database every acknowledged event must
// be there and SQLite's integrity check must pass.
//
// The default is 5 rounds (a few seconds each); `tools/crash-test N` runs N
// rounds (env UPTAKE_CRASH_ROUNDS) and prints a line per round.

/// Rounds to run: 5, or `UPTAKE_CRASH_ROUNDS`.
private let crashRounds: Int = {
  guard let text = ProcessInfo.processInfo.environment["UPTAKE_CRASH_ROUNDS"] else { return 5 }
  return max(1, Int(text) ?? 5)
}()

/// A run asked for by hand prints one line per round.
private let crashRoundsByHand = ProcessInfo.processInfo.environment["UPTAKE_CRASH_ROUNDS"] != nil

private let crashClients = 8
private let crashBatchSize = 50
private let crashUpdateId = "crash-safety"

@Suite(
  "Crash safety: SIGKILL under load loses no acknowledged event",
  .timeLimit(.minutes(2 + crashRounds / 5)))
struct CrashSafetyEndToEndTests {
  @Test("rounds of 8 clients posting, SIGKILL mid-stream, restart: every 200 kept, integrity ok")
  func killedWhilePosting() throws {
    let scratch = try ScratchDirectory()
    var starts = 1
    var daemon = try Daemon(
      databasePath: scratch.databasePath, logPath: scratch.path("uptaked-1.log"))
    var problems = 0
    // Kept for a post-mortem unless the test ran to its end without a problem.
    var keepScratch = true
    defer {
      daemon.stop()
      if !keepScratch {
        scratch.remove()
      } else {
        print("crash safety: database and daemon logs kept in \(scratch.url.path)")
      }
    }
    let ingestKey = try #require(daemon.ingestKey, "the first start prints the ingest key")
    let readKey = try #require(daemon.readKey, "the first start prints the read key")
    let sqlite3 = findExecutable("sqlite3")

    var acknowledged: [Batch] = []
    var sentEvents = 0
    var lost = 0
    var integrityChecked = 0
    var inFlightAtKills = 0

    for round in 1...crashRounds {
      // Post from 8 clients, then kill the daemon while they still post.
      let log = LoadLog()
      let clients = DispatchGroup()
      let url = daemon.url("/v1/events")
      for client in 0..<crashClients {
        clients.enter()
        Thread.detachNewThread {
          defer { clients.leave() }
          postUntilKilled(round: round, client: client, url: url, key: ingestKey, log: log)
        }
      }
      let postingTime = Double.random(in: 0.2...0.8)
      Thread.sleep(forTimeInterval: postingTime)
      let inFlight = log.killing()
      daemon.killHard()
      let clientsStopped = clients.wait(timeout: .now() + 15)
      let load = log.summary
      let killedLog = daemon.log
      inFlightAtKills += inFlight
      try #require(clientsStopped == .success, "round \(round): clients stop after the kill")
      #expect(daemon.diedOfSIGKILL, "round \(round): uptaked died of SIGKILL")
      let onlyExpectedAnswers = load.unexpected.isEmpty
      if !onlyExpectedAnswers { problems += 1 }
      #expect(
        onlyExpectedAnswers,
        "round \(round): only 200, 503, or a connection error after the kill: \(load.unexpected.prefix(5))"
      )
      acknowledged += load.acknowledged
      sentEvents += load.sentEvents
      let acknowledgedEvents = acknowledged.count * crashBatchSize

      starts += 1
      daemon = try Daemon(
        databasePath: scratch.databasePath, logPath: scratch.path("uptaked-\(starts).log"))
      let diagnosis = {
        "\nstderr of the killed uptaked (tail):\n\(tail(killedLog))"
          + "\nstderr of the restarted uptaked (tail):\n\(tail(daemon.log))"
      }

      // (a) The reports count every acknowledged event, and none twice. Read
      // before any re-post, which would store a lost event again.
      let impressions = try impressionCount(daemon, readKey: readKey)
      if impressions < acknowledgedEvents || impressions > sentEvents { problems += 1 }
      #expect(
        impressions >= acknowledgedEvents,
        "round \(round): /v1/updates counts \(impressions) impressions, fewer than the \(acknowledgedEvents) acknowledged \(diagnosis())"
      )
      #expect(
        impressions <= sentEvents,
        "round \(round): /v1/updates counts \(impressions) impressions, more than the \(sentEvents) ever sent"
      )

      // (b) SQLite finds the file sound.
      var integrity = "not checked"
      if let sqlite3 {
        let check = try run(
          sqlite3,
          ["-bail", "-cmd", ".timeout 10000", scratch.databasePath, "PRAGMA integrity_check"],
          timeout: 30)
        integrity = check.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        if check.status == 0 && integrity == "ok" {
          integrityChecked += 1
        } else {
          problems += 1
        }
        #expect(
          check.status == 0 && integrity == "ok",
          "round \(round): PRAGMA integrity_check answered \(check.status) \(integrity) \(check.standardError) \(diagnosis())"
        )
      } else {
        // No sqlite3 (tools/install-deps installs it): at least the CLI must
        // read the file.
        let read = try run(
          try BuiltProgram.path("uptake"),
          ["report", "--app", "default", "--db", scratch.databasePath],
          timeout: 30)
        integrity = read.status == 0 ? "readable by uptake" : "unreadable"
        if read.status != 0 { problems += 1 }
        #expect(read.status == 0, "round \(round): uptake report fails: \(read.standardError)")
      }

      // Which of this round's ids the events table holds, to name lost events
      // precisely if a re-post finds any (diagnostics only; the schema is the
      // store's business, so a failing query just leaves this empty).
      var storedIds: Set<String>? = nil
      if let sqlite3 {
        let query = try run(
          sqlite3,
          [
            "-bail", "-cmd", ".timeout 10000", scratch.databasePath,
            "SELECT client_id FROM events WHERE client_id LIKE 'round-\(round)-%'",
          ], timeout: 30)
        if query.status == 0 {
          storedIds = Set(query.standardOutput.split(separator: "\n").map(String.init))
        }
      }

      // (c) Re-posting each batch acknowledged this round finds every event
      // already stored. (Earlier rounds are re-posted once, at the end; the
      // count above covers them round by round.)
      let reposts = RepostLog()
      let repostURL = daemon.url("/v1/events")
      let repostsDone = inParallel(load.acknowledged, timeout: 120) { batch in
        repost(batch, url: repostURL, key: ingestKey, log: reposts)
      }
      try #require(repostsDone, "round \(round): re-posts finish within 120 s")
      let failures = reposts.failures
      let lostThisRound = failures.reduce(0) { $0 + $1.lost }
      lost += lostThisRound
      let allStored = failures.isEmpty
      if !allStored { problems += 1 }
      #expect(
        allStored,
        """
        round \(round): \(lostThisRound) acknowledged events were not stored \
        (killed after \(Int(postingTime * 1000)) ms, \(inFlight) requests in flight); \
        re-posts answered: \(failures.prefix(10).map { "\($0.batch): \($0.answer)" }); \
        ids missing from the events table: \
        \(storedIds.map { stored in failures.flatMap { $0.ids.filter { !stored.contains($0) } }.prefix(50).description } ?? "unknown") \
        \(diagnosis())
        """)

      if crashRoundsByHand {
        print(
          "crash safety round \(round): killed after \(Int(postingTime * 1000)) ms with \(inFlight) requests in flight; "
            + "\(load.acknowledged.count * crashBatchSize) events acknowledged, \(load.refusals) refusals, "
            + "\(lostThisRound) lost, \(impressions) impressions stored of \(acknowledgedEvents) acknowledged, "
            + "integrity \(integrity)")
      }
    }

    // Every event acknowledged in any round is still stored after all the
    // kills: re-posted in chunks of 1000, all are duplicates.
    let reposts = RepostLog()
    let repostURL = daemon.url("/v1/events")
    let perChunk = 1000 / crashBatchSize
    let chunks = stride(from: 0, to: acknowledged.count, by: perChunk).map {
      Batch(merging: acknowledged[$0..<min($0 + perChunk, acknowledged.count)])
    }
    let repostsDone = inParallel(chunks, timeout: 300) { chunk in
      repost(chunk, url: repostURL, key: ingestKey, log: reposts)
    }
    try #require(repostsDone, "the final re-post of every acknowledged event finishes within 300 s")
    let failures = reposts.failures
    let lostLater = failures.reduce(0) { $0 + $1.lost }
    lost += lostLater
    let allStillStored = failures.isEmpty
    if !allStillStored { problems += 1 }
    #expect(
      allStillStored,
      """
      after \(crashRounds) rounds, \(lostLater) events acknowledged in earlier rounds are gone; \
      re-posts answered: \(failures.prefix(10).map { "\($0.batch): \($0.answer)" }) \
      stderr of the running uptaked (tail): \(tail(daemon.log))
      """)

    #expect(acknowledged.count > 0, "some batches were acknowledged before the kills")
    #expect(inFlightAtKills > 0, "the kills hit requests in flight")
    let integritySummary =
      sqlite3 == nil
      ? "integrity not checked (no sqlite3)"
      : integrityChecked == crashRounds
        ? "integrity ok" : "integrity FAILED in \(crashRounds - integrityChecked) rounds"
    keepScratch = problems > 0
    print(
      "crash safety: \(crashRounds) rounds, \(acknowledged.count * crashBatchSize) acknowledged events, "
        + "\(lost) lost, \(integritySummary)")
  }
}

/// One batch of events with unique ids `round-R-client-C-batch-B-event-E`,
/// all impressions stamped with the time they were made.
private struct Batch: Sendable {
  let name: String
  let ids: [String]
  let events: [String]

  init(round: Int, client: Int, number: Int) {
    name = "round-\(round)-client-\(client)-batch-\(number)"
    let timestamp = Date().ISO8601Format()
    ids = (0..<crashBatchSize).map { "round-\(round)-client-\(client)-batch-\(number)-event-\($0)" }
    events = ids.map {
      eventJSON(
        id: $0, updateId: crashUpdateId, action: "impression", installId: "client-\(client)",
        timestamp: timestamp)
    }
  }

  /// The events of several batches as one.
  init(merging batches: ArraySlice<Batch>) {
    name = "\(batches.first?.name ?? "") … \(batches.last?.name ?? "")"
    ids = batches.flatMap(\.ids)
    events = batches.flatMap(\.events)
  }

  var body: String { batchJSON(events) }
}

/// An ingest answer.
private struct IngestAnswer: Decodable {
  struct Rejection: Decodable {
    let index: Int
    let error: String
  }

  let accepted: Int
  let duplicates: Int
  let rejected: [Rejection]

  init?(_ response: HTTPResponse) {
    guard response.status == 200,
      let answer = try? JSONDecoder().decode(IngestAnswer.self, from: response.body)
    else { return nil }
    self = answer
  }
}

/// One client: posts new batches until the daemon is killed under it.
private func postUntilKilled(round: Int, client: Int, url: URL, key: String, log: LoadLog) {
  let http = HTTPClient(timeout: 5)
  for number in 0... {
    if log.isKilling { return }
    let batch = Batch(round: round, client: client, number: number)
    log.sending(batch)
    do {
      let response = try http.postJSON(url, key: key, batch.body)
      let answer = IngestAnswer(response)
      if let answer, answer.accepted == crashBatchSize, answer.duplicates == 0,
        answer.rejected.isEmpty
      {
        log.answered(batch, acknowledged: true)
      } else if response.status == 503 {
        log.answered(batch, acknowledged: false, refused: true)
        Thread.sleep(forTimeInterval: 0.02)
      } else {
        log.answered(
          batch, acknowledged: false,
          unexpected: "\(batch.name): \(response.status) \(response.text)")
        return
      }
    } catch {
      // After the kill a connection error is the expected end; before it,
      // the daemon was not supposed to drop anything.
      let killed = log.isKilling
      log.answered(
        batch, acknowledged: false,
        unexpected: killed ? nil : "\(batch.name): connection error before the kill: \(error)")
      return
    }
  }
}

/// What the clients of one round did, from all their threads.
private final class LoadLog: @unchecked Sendable {
  struct Summary {
    var acknowledged: [Batch] = []
    var sentEvents = 0
    var refusals = 0
    var unexpected: [String] = []
  }

  private let lock = NSLock()
  private var state = Summary()
  private var inFlight = 0
  private var killingFlag = false

  func sending(_ batch: Batch) {
    lock.withLock {
      state.sentEvents += batch.ids.count
      inFlight += 1
    }
  }

  func answered(
    _ batch: Batch, acknowledged: Bool, refused: Bool = false, unexpected: String? = nil
  ) {
    lock.withLock {
      inFlight -= 1
      if acknowledged { state.acknowledged.append(batch) }
      if refused { state.refusals += 1 }
      if let unexpected { state.unexpected.append(unexpected) }
    }
  }

  /// Marks the kill as under way (before the signal is sent) and returns the
  /// requests in flight at that moment.
  func killing() -> Int {
    lock.withLock {
      killingFlag = true
      return inFlight
    }
  }

  var isKilling: Bool { lock.withLock { killingFlag } }
  var summary: Summary { lock.withLock { state } }
}

/// Re-post answers that were not all duplicates.
private final class RepostLog: @unchecked Sendable {
  struct Failure {
    let batch: String
    let ids: [String]
    let answer: String
    /// Events the daemon did not have (all of them when the answer is unclear).
    let lost: Int
  }

  private let lock = NSLock()
  private var list: [Failure] = []

  func failed(_ failure: Failure) { lock.withLock { list.append(failure) } }
  var failures: [Failure] { lock.withLock { list } }
}

/// Posts an acknowledged batch again: every event must be a duplicate.
private func repost(_ batch: Batch, url: URL, key: String, log: RepostLog) {
  do {
    let response = try HTTPClient(timeout: 10).postJSON(url, key: key, batch.body)
    let answer = IngestAnswer(response)
    if let answer, answer.accepted == 0, answer.duplicates == batch.ids.count,
      answer.rejected.isEmpty
    {
      return
    }
    log.failed(
      .init(
        batch: batch.name, ids: batch.ids, answer: "\(response.status) \(response.text)",
        lost: answer?.accepted ?? batch.ids.count))
  } catch {
    log.failed(
      .init(batch: batch.name, ids: batch.ids, answer: "\(error)", lost: batch.ids.count))
  }
}

/// The impressions of the test's update in `/v1/updates` (default range,
/// test events included).
private func impressionCount(_ daemon: Daemon, readKey: String) throws -> Int {
  struct Updates: Decodable {
    struct Row: Decodable {
      let updateId: String
      let impression: Int
    }
    let updates: [Row]
  }
  let response = try HTTPClient(timeout: 10).get(
    daemon.url("/v1/updates?test=include"), key: readKey)
  try #require(response.status == 200, "GET /v1/updates: \(response.status) \(response.text)")
  let updates = try JSONDecoder().decode(Updates.self, from: response.body)
  return updates.updates.filter { $0.updateId == crashUpdateId }.reduce(0) { $0 + $1.impression }
}

/// Runs `work` on every item from `threads` threads; false when they have not
/// all finished within `timeout` seconds.
private func inParallel(
  _ items: [Batch], threads: Int = crashClients, timeout: TimeInterval,
  _ work: @escaping @Sendable (Batch) -> Void
) -> Bool {
  let group = DispatchGroup()
  for thread in 0..<threads {
    group.enter()
    Thread.detachNewThread {
      defer { group.leave() }
      for index in stride(from: thread, to: items.count, by: threads) { work(items[index]) }
    }
  }
  return group.wait(timeout: .now() + timeout) == .success
}

/// The end of a log, for a failure message.
private func tail(_ text: String, _ count: Int = 3000) -> String {
  text.count <= count ? text : "…" + String(text.suffix(count))
}

/// The first executable `name` on PATH.
private func findExecutable(_ name: String) -> String? {
  let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
  for directory in path.split(separator: ":") + ["/usr/bin", "/usr/local/bin"] {
    let candidate = "\(directory)/\(name)"
    if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
  }
  return nil
}
