/// Batches waiting for the writer, kept by app and taken app by app in
/// turn, so one app's flood neither fills the queue nor stands in front of
/// another app's batch (issue 25: a flood on one key took another app's
/// single-event p99 to 5.6 s).
struct FairQueue<Job> {
  /// Waiting jobs by app, each app's in arrival order, with their events.
  private var waiting: [Int64: AppJobs] = [:]
  /// The apps with waiting jobs, in the order they take turns.
  private var turns: [Int64] = []
  private var eventsByApp: [Int64: Int] = [:]
  private(set) var events = 0

  /// One app's jobs from `next` on: taken by moving `next`, not by
  /// removing the first, which moved every job behind it each time.
  private struct AppJobs {
    var jobs: [(job: Job, events: Int)] = []
    var next = 0

    var first: (job: Job, events: Int) { jobs[next] }
    var remaining: Int { jobs.count - next }

    /// Moves past the next job; once the jobs taken are half the array,
    /// drops them, so an app that never runs dry holds no batch it sent.
    mutating func takeOne() {
      next += 1
      if next >= 64 && next * 2 >= jobs.count {
        jobs.removeFirst(next)
        next = 0
      }
    }
  }

  var isEmpty: Bool { turns.isEmpty }

  /// Apps with jobs waiting.
  var appsWaiting: Int { turns.count }

  /// Events of `appNo` waiting.
  func events(of appNo: Int64) -> Int { eventsByApp[appNo, default: 0] }

  mutating func append(_ job: Job, appNo: Int64, events count: Int) {
    if waiting[appNo] == nil { turns.append(appNo) }
    waiting[appNo, default: AppJobs()].jobs.append((job, count))
    eventsByApp[appNo, default: 0] += count
    events += count
  }

  /// Jobs for one transaction: a job of each app in turn that `mayTake`
  /// admits, round after round, while they fit in `maxEvents` (the first
  /// always goes, whatever its size). Apps left out keep their turn.
  mutating func take(maxEvents: Int, where mayTake: (Int64) -> Bool) -> [Job] {
    var taken: [Job] = []
    var takenEvents = 0
    var skipped: [Int64] = []
    while let appNo = turns.first {
      guard mayTake(appNo) else {
        skipped.append(turns.removeFirst())
        continue
      }
      // Read through the dictionary, not a copy: a copy would share the
      // array and make `takeOne`'s compaction copy it.
      let next = waiting[appNo]!.first
      guard taken.isEmpty || takenEvents + next.events <= maxEvents else { break }
      turns.removeFirst()
      if waiting[appNo]!.remaining == 1 {
        waiting[appNo] = nil
      } else {
        waiting[appNo]!.takeOne()
        turns.append(appNo)
      }
      eventsByApp[appNo]! -= next.events
      if eventsByApp[appNo] == 0 { eventsByApp[appNo] = nil }
      events -= next.events
      taken.append(next.job)
      takenEvents += next.events
    }
    turns.insert(contentsOf: skipped, at: 0)
    return taken
  }
}
