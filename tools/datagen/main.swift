import Foundation
import UptakeCore
import UptakeDataGen

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

let usage = """
  usage: uptake-datagen [--seed N] [--installs N] [--updates N] [--days N]
                        [--end YYYY-MM-DD|now] [--test-share F]
                        [--order time|install]
                        [--post URL --key INGEST_KEY [--batch N]]

  Writes deterministic, realistic update-prompt events as NDJSON on stdout
  (for `uptake import`), or posts them to a running uptaked in batches.
  The same options give the same events on every run.

  options:
    --seed N          random seed (default 1)
    --installs N      installs to simulate (default 1000; ~5 events each)
    --updates N       update prompts, each offering the next version (default 10)
    --days N          days of traffic ending at --end (default 30, at most 89)
    --end DATE|now    last moment of traffic (default now)
    --test-share F    share of test installs (default 0.01)
    --order time|install
                      NDJSON in time order, as real traffic and exports are
                      (default), or install by install as simulated
    --post URL        post to URL/v1/events instead of printing
    --key KEY         the ingest key for --post
    --batch N         events per request with --post (default 500)
    --rate N          with --post, at most N events a second (default: as fast
                      as the server answers)
  """

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("uptake-datagen: \(message)\n\n\(usage)\n".utf8))
  exit(64)
}

var parameters = EventSimulation.Parameters()
parameters.endMs = Int64(Date().timeIntervalSince1970 * 1000)
var postURL: String?
var key: String?
var batchSize = 500
var ratePerSecond: Double?
var timeOrder = true
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
  if flag == "-h" || flag == "--help" {
    print(usage)
    exit(0)
  }
  guard let value = arguments.popFirst() else { fail("\(flag) needs a value") }
  switch flag {
  case "--seed": parameters.seed = UInt64(value) ?? { fail("bad --seed") }()
  case "--installs": parameters.installs = Int(value) ?? { fail("bad --installs") }()
  case "--updates": parameters.updates = Int(value) ?? { fail("bad --updates") }()
  case "--days":
    parameters.days = Int(value) ?? { fail("bad --days") }()
    guard (1...89).contains(parameters.days) else { fail("--days must be 1 to 89") }
  case "--end":
    if value != "now" {
      guard let day = Timestamp.parseDate(value) else { fail("bad --end") }
      parameters.endMs = (day + 1) * 86_400_000 - 1
    }
  case "--test-share": parameters.testShare = Double(value) ?? { fail("bad --test-share") }()
  case "--order":
    guard value == "time" || value == "install" else { fail("--order is time or install") }
    timeOrder = value == "time"
  case "--post": postURL = value
  case "--key": key = value
  case "--batch": batchSize = max(1, Int(value) ?? { fail("bad --batch") }())
  case "--rate":
    ratePerSecond = Double(value).flatMap { $0 > 0 ? $0 : nil } ?? { fail("bad --rate") }()
  default: fail("unknown option \(flag)")
  }
}

let simulation = EventSimulation(parameters)

guard let postURL else {
  if timeOrder {
    do {
      var output = try TimeOrderedOutput()
      var failure: Error?
      simulation.generate { event in
        guard failure == nil else { return }
        do { try output.add(event) } catch { failure = error }
      }
      if let failure { throw failure }
      try output.finish(into: FileHandle.standardOutput)
    } catch {
      FileHandle.standardError.write(Data("uptake-datagen: \(error)\n".utf8))
      exit(74)
    }
    exit(0)
  }
  var buffer = ""
  simulation.generate { event in
    buffer += EventJSON.object(event)
    buffer += "\n"
    if buffer.utf8.count > 1 << 16 {
      FileHandle.standardOutput.write(Data(buffer.utf8))
      buffer = ""
    }
  }
  FileHandle.standardOutput.write(Data(buffer.utf8))
  exit(0)
}

guard let key else { fail("--post needs --key") }
guard let endpoint = URL(string: postURL.hasSuffix("/v1/events") ? postURL : postURL + "/v1/events")
else { fail("bad --post URL") }

/// Posts one batch, retrying on 429/503 and network errors as a client would.
func post(_ events: [Event]) -> (accepted: Int, duplicates: Int, rejected: Int) {
  var request = URLRequest(url: endpoint)
  request.httpMethod = "POST"
  request.setValue("application/json", forHTTPHeaderField: "Content-Type")
  request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
  request.httpBody = Data(EventJSON.batch(events).utf8)
  for attempt in 0..<8 {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: (Data?, URLResponse?) = (nil, nil)
    URLSession.shared.dataTask(with: request) { data, response, _ in
      result = (data, response)
      done.signal()
    }.resume()
    done.wait()
    let status = (result.1 as? HTTPURLResponse)?.statusCode ?? 0
    if status == 200, let data = result.0,
      let body = try? JSONParser().parse(Array(data))
    {
      func count(_ name: String) -> Int {
        if case .number(let number)? = body[name] { return Int(number.text) ?? 0 }
        return 0
      }
      var rejected = 0
      if case .array(let list)? = body["rejected"] { rejected = list.count }
      return (count("accepted"), count("duplicates"), rejected)
    }
    if status == 400 || status == 401 || status == 413 {
      fail(
        "server refused a batch with \(status): \(String(decoding: result.0 ?? Data(), as: UTF8.self))"
      )
    }
    usleep(useconds_t(100_000 << min(attempt, 5)))
  }
  fail("gave up on a batch after 8 attempts")
}

/// Posts every generated event in batches and prints the server's totals.
@MainActor func postAll() {
  var pending: [Event] = []
  var totals = (accepted: 0, duplicates: 0, rejected: 0)
  let started = Date()
  var sent = 0
  func flush() {
    guard !pending.isEmpty else { return }
    if let ratePerSecond {
      // Keep pace: wait until this batch is due at the asked rate.
      let due = started.addingTimeInterval(Double(sent) / ratePerSecond)
      let wait = due.timeIntervalSinceNow
      if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
    }
    sent += pending.count
    let result = post(pending)
    totals.accepted += result.accepted
    totals.duplicates += result.duplicates
    totals.rejected += result.rejected
    pending.removeAll(keepingCapacity: true)
  }
  simulation.generate { event in
    pending.append(event)
    if pending.count >= batchSize { flush() }
  }
  flush()
  print("accepted \(totals.accepted), duplicates \(totals.duplicates), rejected \(totals.rejected)")
}
postAll()
