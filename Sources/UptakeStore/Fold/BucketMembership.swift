/// Whether an install is new to a bucket of daily_counts, for the fold:
/// a new one adds to the bucket's distinct installs and to its packed
/// members (daily_install_chunks), which are the record of membership.
///
/// Why not a B-tree of members: keyed by bucket and install, every fold
/// step inserted at random pages of the day's part of it and so rewrote
/// that part nearly whole, at commit and again at checkpoint, the fold's
/// largest writer cost (docs/performance.md). Here a `MemberFilter` per
/// app, test flag and day rules out almost every new member in memory, and
/// only the installs it cannot rule out are looked up, one scan of their
/// bucket's packed members for all of them.
///
/// One per folding connection (`RollupFolder`). The filters describe the
/// members as of the folded seq they were last committed with: when
/// another connection has folded since (an import beside the daemon), or
/// a fold of this one failed, they are dropped and built again from the
/// packed members.
final class BucketMembership {
  /// One app's and test flag's day: a filter's scope.
  struct Day: Hashable {
    let appNo: Int64
    let isTest: Bool
    let day: Int64
  }

  /// Days with a filter at most, and the memory all filters may take: a
  /// filter is built for the days a fold step brings many installs of, so
  /// today, yesterday and the days late arrivals land on; past either
  /// bound the least recently used goes first. With 6 days, a flood with
  /// one event in ten 1 to 30 days late rebuilt a filter of every day it
  /// touched from the day's members, step after step, and folded at 18,000
  /// events a second against 131,000 with 32 (`tools/fold-rate --late 0.1`,
  /// docs/performance.md).
  static let maxDays = 32
  static let defaultMaxFilterBytes = 48 << 20
  /// The memory budget of all filters (settable for tests).
  var maxFilterBytes = BucketMembership.defaultMaxFilterBytes
  /// A day whose installs in one fold step are fewer than this gets no
  /// filter: looking its few installs up in their buckets' packed members
  /// costs less than reading the whole day's members into a filter.
  static let installsWorthAFilter = 500

  private(set) var filters: [Day: MemberFilter] = [:]
  private var lastUsed: [Day: Int] = [:]
  private var foldsSeen = 0
  /// The folded seq the filters are exact for; nil before the first fold.
  private var validThrough: Int64?
  /// The days of the current fold step worth a filter.
  private var worthAFilter: Set<Day> = []

  /// Starts a fold step of `batch`, whose events follow `foldedSeq`.
  func beginFold(after foldedSeq: Int64, _ batch: FoldBatch) {
    if validThrough != foldedSeq { filters.removeAll() }
    foldsSeen += 1
    var installs = PairCounts()
    for event in batch.events where event.hasInstall {
      installs.add(PairCounts.Key(appNo: event.appNo, isTest: event.isTest, day: Int64(event.day)))
    }
    worthAFilter = []
    installs.forEach { key, count in
      guard count >= Self.installsWorthAFilter else { return }
      worthAFilter.insert(Day(appNo: key.appNo, isTest: key.isTest, day: key.day))
    }
  }

  /// The fold step committed: the filters now describe `foldedSeq`.
  func didCommit(through foldedSeq: Int64) {
    validThrough = foldedSeq
  }

  /// The fold step failed: what the filters took from it was never
  /// committed, so they are built afresh next time.
  func forget() {
    filters.removeAll()
    validThrough = nil
  }

  /// Which of `installs` (distinct) are members of `bucket` already.
  func knownMembers(
    of bucket: InstallChunks.Bucket, among installs: [Int64], _ reader: InstallChunks.Reader,
    _ database: Database
  ) throws(StoreError) -> Set<Int64> {
    let day = Day(appNo: bucket.appNo, isTest: bucket.isTest, day: bucket.day)
    // Filtered as an array: only the few the filter leaves become a Set.
    // A Set of every install first hashed each twice (SipHash), about 1 %
    // of the fold (docs/performance.md, session 32).
    var candidates = installs
    if let filter = try filter(for: day, adding: installs.count, database) {
      let hash = MemberFilter.bucketHash(updateId: bucket.updateId, action: bucket.action)
      candidates = installs.filter {
        filter.mayContain(MemberFilter.key(bucket: hash, install: $0))
      }
    }
    guard !candidates.isEmpty else { return [] }
    return try reader.members(of: bucket, among: Set(candidates))
  }

  /// Whether `install` may be a member of the bucket of `hash`
  /// (`MemberFilter.bucketHash`) on `day`: false only when a filter held
  /// for the day rules it out. Asked after `writeDaily`, so the filters
  /// hold the current fold step's members too.
  func mayHold(_ install: Int64, bucket hash: UInt64, on day: Day) -> Bool {
    filters[day]?.mayContain(MemberFilter.key(bucket: hash, install: install)) ?? true
  }

  /// Records members the fold is adding to `bucket`.
  func didAdd(_ installs: [Int64], to bucket: InstallChunks.Bucket) {
    let day = Day(appNo: bucket.appNo, isTest: bucket.isTest, day: bucket.day)
    // Out of the dictionary while it takes them: through `filters[day]`
    // each insert hashed the day again (docs/performance.md); and held
    // once, it is not copied on write.
    guard !installs.isEmpty, var filter = filters.removeValue(forKey: day) else { return }
    let hash = MemberFilter.bucketHash(updateId: bucket.updateId, action: bucket.action)
    for install in installs {
      filter.insert(MemberFilter.key(bucket: hash, install: install))
    }
    filters[day] = filter
  }

  /// The day's filter, built from its packed members when the current fold
  /// step is worth one, and rebuilt bigger when `adding` more members would
  /// overfill it; nil when the day has none.
  private func filter(for day: Day, adding: Int, _ database: Database) throws(StoreError)
    -> MemberFilter?
  {
    let held = filters[day]
    if let held, !held.shouldGrow(toHold: held.count + adding) {
      lastUsed[day] = foldsSeen
      return held
    }
    guard held != nil || worthAFilter.contains(day) else { return nil }
    if held == nil, filters.count >= Self.maxDays { evictLeastRecentlyUsed() }
    // The old filter goes first: both at once would double the peak.
    filters[day] = nil
    let built = try Self.build(day, adding: adding, database)
    while !filters.isEmpty,
      filters.values.reduce(built.byteCount, { $0 + $1.byteCount }) > maxFilterBytes
    {
      evictLeastRecentlyUsed()
    }
    filters[day] = built
    lastUsed[day] = foldsSeen
    return built
  }

  private func evictLeastRecentlyUsed() {
    guard
      let oldest = filters.keys.min(by: { lastUsed[$0, default: 0] < lastUsed[$1, default: 0] })
    else { return }
    filters[oldest] = nil
    lastUsed[oldest] = nil
  }

  /// A filter of the day's packed members, sized for half as many again,
  /// so that a growing day rebuilds it a logarithmic number of times.
  private static func build(_ day: Day, adding: Int, _ database: Database) throws(StoreError)
    -> MemberFilter
  {
    let daysChunks = """
      FROM daily_counts AS c
      JOIN daily_install_chunks AS m
        ON m.app_no = c.app_no AND m.is_test = c.is_test AND m.update_id = c.update_id
        AND m.day = c.day AND m.action = c.action
      WHERE c.app_no = ? AND c.is_test = ? AND c.day = ?
      """
    let total = try database.statement("SELECT coalesce(sum(m.entries), 0) " + daysChunks)
    let members = try database.statement("SELECT c.update_id, c.action, m.packed " + daysChunks)
    for statement in [total, members] {
      try statement.bind(1, day.appNo)
      try statement.bind(2, Int64(day.isTest ? 1 : 0))
      try statement.bind(3, day.day)
    }
    defer {
      total.reset()
      members.reset()
    }
    let count = try total.step() ? total.int(0) : 0
    var filter = MemberFilter(members: (count + adding) * 3 / 2)
    while try members.step() {
      let hash = MemberFilter.bucketHash(updateId: members.string(0), action: members.int(1))
      members.withBlob(2) { blob in
        Int64.forEachPacked(in: blob) { filter.insert(MemberFilter.key(bucket: hash, install: $0)) }
      }
    }
    return filter
  }
}
