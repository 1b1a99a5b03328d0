import Testing

@testable import UptakeStore

@Suite("FairQueue and UnfoldedByApp: one app's flood waits, another's batch goes")
struct FairQueueTests {
  @Test("jobs are taken app by app in turn, each app's in order, within the event cap")
  func turns() {
    var queue = FairQueue<String>()
    for (job, app) in [("a1", 1), ("a2", 1), ("a3", 1), ("b1", 2), ("c1", 3), ("b2", 2)] {
      queue.append(job, appNo: Int64(app), events: 10)
    }
    #expect(queue.events == 60 && queue.events(of: 1) == 30)
    #expect(queue.take(maxEvents: 40) { _ in true } == ["a1", "b1", "c1", "a2"])
    #expect(queue.take(maxEvents: 40) { _ in true } == ["b2", "a3"])
    #expect(queue.isEmpty && queue.events == 0 && queue.events(of: 1) == 0)
  }

  @Test("an app held back keeps its place; the others' jobs go past it")
  func heldBack() {
    var queue = FairQueue<String>()
    for (job, app) in [("a1", 1), ("a2", 1), ("b1", 2)] {
      queue.append(job, appNo: Int64(app), events: 100)
    }
    #expect(queue.take(maxEvents: 1_000) { $0 != 1 } == ["b1"])
    #expect(queue.events(of: 1) == 200)
    #expect(
      queue.take(maxEvents: 1) { _ in true } == ["a1"], "the first job goes whatever its size")
    #expect(queue.take(maxEvents: 1_000) { _ in true } == ["a2"])
  }

  @Test("hundreds of one app's jobs, taken a few at a time past the compaction, keep their order")
  func longRun() {
    var queue = FairQueue<Int>()
    for job in 0..<300 { queue.append(job, appNo: 1, events: 1) }
    var taken: [Int] = []
    while !queue.isEmpty {
      taken += queue.take(maxEvents: 7) { _ in true }
      if taken.count == 140 { queue.append(1_000, appNo: 1, events: 1) }
    }
    #expect(taken == Array(0..<300) + [1_000])
    #expect(queue.events == 0 && queue.events(of: 1) == 0)
  }

  @Test("an app's unfolded events are its commits the fold has not passed")
  func unfolded() {
    var unfolded = UnfoldedByApp()
    unfolded.committed(100, appNo: 1, throughSeq: 100)
    unfolded.committed(5, appNo: 2, throughSeq: 105)
    unfolded.committed(100, appNo: 1, throughSeq: 205)
    #expect(unfolded.events(of: 1, foldedSeq: 0) == 200)
    #expect(unfolded.events(of: 2, foldedSeq: 0) == 5)
    #expect(unfolded.events(of: 1, foldedSeq: 150) == 100, "the first commit is folded")
    #expect(unfolded.events(of: 2, foldedSeq: 150) == 0)
    #expect(unfolded.events(of: 1, foldedSeq: 205) == 0)
    #expect(unfolded.events(of: 3, foldedSeq: 0) == 0)
  }
}
