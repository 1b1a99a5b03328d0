import UptakeCore

/// The funnel_downloads rows a fold writes (schema/0016, packed into
/// funnel_download_chunks by 0019): one per install, update, day and test
/// flag with a download, holding every download time
/// (`DownloadTimes`) and the rises after them (`Rises`), both worked out
/// from the install's whole timeline, so a row is the same whatever order
/// its install's events arrived in.
///
/// A row is written again only when the step's points change it: a new
/// download of its own, or a point that rises above every event since one
/// of its downloads (a late event, or simply the next one after a
/// download). The timeline says which downloads those are, and of which
/// updates, so the fold never reads the rows it replaces.
struct FunnelDownloads {
  private struct Key: Equatable {
    let appNo: Int64
    let isTest: Bool
    /// The update id's number in the fold's `updates`.
    let update: Int32
    let day: Int32
    let installKey: Int64

    /// Whether the two rows go to the same bucket of funnel_download_chunks.
    func sharesBucket(with other: Key) -> Bool {
      appNo == other.appNo && isTest == other.isTest && update == other.update && day == other.day
    }
  }

  /// The rows worked out so far, each at most once a step (a step works
  /// out an install once), their times and rises kept in shared arrays:
  /// a dictionary of two arrays a row was a large part of the fold's peak
  /// of memory, a heap block for each of a flood step's ~100,000 rows.
  private var rows: [Row] = []
  private var rowDownloadTimes: [Int64] = []
  private var rowRises: [(ts: Int64, version: Int32)] = []

  /// A row's key, its download times `rowDownloadTimes[downloads]` and its
  /// rises `rowRises[rises]`.
  private struct Row {
    let key: Key
    let downloads: Range<Int32>
    let rises: Range<Int32>
  }

  /// Works out again the install's rows that the `added` points change,
  /// from its `timeline` (sorted by time, `added` included).
  mutating func update(
    _ scope: InstallScope, added: [TimelinePoint], timeline: [TimelinePoint], ranks: [Int32]
  ) {
    for row in Self.changedRows(added: added, timeline: timeline, ranks: ranks) {
      let downloads = Self.downloadTimes(of: row.update, on: row.day, in: timeline)
      let rises = Self.rises(after: downloads, in: timeline, ranks: ranks)
      let key = Key(
        appNo: scope.appNo, isTest: scope.isTest, update: row.update, day: row.day,
        installKey: scope.installKey)
      let downloadsStart = Int32(rowDownloadTimes.count)
      let risesStart = Int32(rowRises.count)
      rowDownloadTimes += downloads
      rowRises += rises
      rows.append(
        Row(
          key: key, downloads: downloadsStart..<Int32(rowDownloadTimes.count),
          rises: risesStart..<Int32(rowRises.count)))
    }
  }

  /// The (update, day) rows the added points change: each added download's,
  /// and each row with a download that an added point rises after, that is,
  /// one after which every event before the point is on a lower version.
  static func changedRows(added: [TimelinePoint], timeline: [TimelinePoint], ranks: [Int32])
    -> [(update: Int32, day: Int32)]
  {
    var changed: [(update: Int32, day: Int32)] = []
    func note(_ point: TimelinePoint) {
      guard point.download != TimelinePoint.noDownload,
        !changed.contains(where: { $0.update == point.download && $0.day == point.day })
      else { return }
      changed.append((point.download, point.day))
    }
    for point in added {
      note(point)
      let rank = ranks[Int(point.version)]
      // A text that is no version never counts as an upgrade.
      guard rank >= 0 else { continue }
      // Back through the earlier times, one time at a time, while every
      // event between them and the point is below it.
      var highest = Int32.min
      var end = timeline.firstIndex(notBefore: point.ts)
      while end > 0 && highest < rank {
        let ts = timeline[end - 1].ts
        var start = end - 1
        while start > 0 && timeline[start - 1].ts == ts { start -= 1 }
        for earlier in timeline[start..<end] { note(earlier) }
        for earlier in timeline[start..<end] {
          highest = max(highest, ranks[Int(earlier.version)])
        }
        end = start
      }
    }
    return changed
  }

  /// The distinct times the timeline downloaded `update` on `day`.
  static func downloadTimes(of update: Int32, on day: Int32, in timeline: [TimelinePoint])
    -> [Int64]
  {
    var times: [Int64] = []
    for point in timeline where point.download == update && point.day == day {
      if times.last != point.ts { times.append(point.ts) }
    }
    return times
  }

  /// The points that come after one of `downloads` on a higher version
  /// than every point between that download and them, each once, in time
  /// order. The first point after a download on a version above any given
  /// one is always among them: every point between is lower.
  ///
  /// One sweep, however many downloads: a point rises after some download
  /// exactly when it rises after the latest download before it, since the
  /// points between that one and it are fewer.
  static func rises(after downloads: [Int64], in timeline: [TimelinePoint], ranks: [Int32])
    -> [(ts: Int64, version: Int32)]
  {
    guard let first = downloads.first else { return [] }
    var rises: [(ts: Int64, version: Int32)] = []
    var nextDownload = 0
    // The highest version since the latest download passed; nil before one.
    var highest: Int32?
    var index = timeline.firstIndex(notBefore: first)
    while index < timeline.count {
      let ts = timeline[index].ts
      var groupHighest = Int32.min
      while index < timeline.count && timeline[index].ts == ts {
        let point = timeline[index]
        let rank = ranks[Int(point.version)]
        if let highest, rank >= 0, rank > highest,
          rises.last.map({ $0.ts != ts || $0.version != point.version }) ?? true
        {
          rises.append((ts, point.version))
        }
        groupHighest = max(groupHighest, rank)
        index += 1
      }
      highest = highest.map { max($0, groupHighest) }
      while nextDownload < downloads.count && downloads[nextDownload] <= ts {
        if downloads[nextDownload] == ts { highest = Int32.min }
        nextDownload += 1
      }
    }
    return rises
  }

  /// Appends the rows to their buckets of funnel_download_chunks, in the
  /// table's key order: a bucket's earlier entries stay, and readers take
  /// every entry (schema/0019).
  func write(_ database: Database, updates: TextNumbering, versions: TextNumbering)
    throws(StoreError)
  {
    guard !rows.isEmpty else { return }
    let ranks = updates.byteOrderRanks()
    // Indices sorted, not the rows: a sorted copy of the rows, and the
    // sort's buffer, were the fold's peak of memory.
    var ordered = Array(rows.indices)
    ordered.sort { left, right in
      let (left, right) = (rows[left].key, rows[right].key)
      if left.appNo != right.appNo { return left.appNo < right.appNo }
      if left.isTest != right.isTest { return !left.isTest }
      if left.update != right.update { return ranks[Int(left.update)] < ranks[Int(right.update)] }
      if left.day != right.day { return left.day < right.day }
      return left.installKey < right.installKey
    }
    let chunks = try InstallChunks.Writer<DownloadRow>(database, table: "funnel_download_chunks")
    var bucketRows: [DownloadRow] = []
    for (index, rowIndex) in ordered.enumerated() {
      let row = rows[rowIndex]
      let key = row.key
      let dayStartMs = Int64(key.day) * Timestamp.msPerDay
      var entry = DownloadRow(installKey: key.installKey, downloads: [], rises: [])
      DownloadTimes.pack(
        rowDownloadTimes[Int(row.downloads.lowerBound)..<Int(row.downloads.upperBound)],
        dayStartMs: dayStartMs, into: &entry.downloads)
      Rises.pack(
        rowRises[Int(row.rises.lowerBound)..<Int(row.rises.upperBound)].lazy.map {
          ($0.ts, versions.texts[Int($0.version)])
        }, dayStartMs: dayStartMs, into: &entry.rises)
      bucketRows.append(entry)
      let next = index + 1 < ordered.count ? rows[ordered[index + 1]].key : nil
      assert(next != key, "a step works out each install's row once")
      guard next.map({ !key.sharesBucket(with: $0) }) ?? true else { continue }
      try chunks.append(
        bucketRows,
        to: InstallChunks.Bucket(
          appNo: key.appNo, isTest: key.isTest, updateId: updates.texts[Int(key.update)],
          day: Int64(key.day), action: Action.download.rawValue))
      bucketRows.removeAll(keepingCapacity: true)
    }
  }
}
