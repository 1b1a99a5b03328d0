import Foundation

/// The write-ahead log's size for `WALCheckpointSchedule`, read from the file
/// system at most every `interval` rather than after every commit.
///
/// Reading it is a `stat`, and since Linux 6.13 a file whose change time has
/// been read gets a fine-grained time stamp on its next write, so the inode
/// changes with every commit. On ext4 without a journal `fdatasync` then
/// writes the inode block too, a second synchronous write per commit that
/// slowed single-event ingest (docs/performance.md). The schedule acts at
/// 64 MiB of log, so a size 50 ms old is as good as a fresh one.
struct LogSizeSample {
  static let interval = 0.05

  private var readAt = Date.distantPast
  private var lastBytes = 0

  /// The size `read` last returned, reading it again when it is older than
  /// `interval` at `now`.
  mutating func bytes(now: Date, read: () -> Int) -> Int {
    if now.timeIntervalSince(readAt) >= Self.interval {
      lastBytes = read()
      readAt = now
    }
    return lastBytes
  }
}
