/// How many of each app's committed events the fold has not reached yet,
/// so the writer holds back only an app whose own backlog is over the cap:
/// before, every app's batches waited for the fold behind one app's flood.
///
/// Kept by the writer thread: each commit adds, per app, its events under
/// the commit's last sequence number; a commit counts as unfolded until
/// the fold has passed all of it, so a count errs high, never low.
struct UnfoldedByApp {
  private var commits: [Int64: [(throughSeq: Int64, events: Int)]] = [:]
  private var totals: [Int64: Int] = [:]

  mutating func committed(_ events: Int, appNo: Int64, throughSeq: Int64) {
    guard events > 0 else { return }
    commits[appNo, default: []].append((throughSeq, events))
    totals[appNo, default: 0] += events
  }

  /// The app's events past `foldedSeq`; forgets the commits folded.
  mutating func events(of appNo: Int64, foldedSeq: Int64) -> Int {
    guard var list = commits[appNo] else { return 0 }
    var folded = 0
    while folded < list.count && list[folded].throughSeq <= foldedSeq {
      totals[appNo]! -= list[folded].events
      folded += 1
    }
    if folded > 0 {
      list.removeFirst(folded)
      if list.isEmpty {
        commits[appNo] = nil
        totals[appNo] = nil
        return 0
      }
      commits[appNo] = list
    }
    return totals[appNo]!
  }
}
